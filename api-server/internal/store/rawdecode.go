package store

import (
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
	"unsafe"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// errColumnCount: a raw row does not have the columns its decoder reads.
var errColumnCount = errors.New("raw row: column count mismatch")

func nullTime(t pgtype.Timestamptz) NullTime {
	if !t.Valid {
		return NullTime{}
	}
	return NullTime{Time: t.Time.UTC(), Valid: true}
}

// rawDecoder reads a row from pgx's raw column values, without pgx's scan
// machinery: the text of every string column of a page is copied into one
// shared buffer (the strings point into it) instead of a string allocation
// each, which profiles showed as most of the insights scan's cost. Binary
// (int8, float8, timestamptz) and text result formats are both understood.
type rawDecoder struct {
	vals  [][]byte
	fds   []pgconn.FieldDescription
	arena []byte
	err   error
}

func (d *rawDecoder) fail(i int, what string) {
	if d.err == nil {
		d.err = fmt.Errorf("column %d: %s", i, what)
	}
}

func (d *rawDecoder) str(i int) string {
	v := d.vals[i]
	if v == nil {
		d.fail(i, "unexpected NULL")
		return ""
	}
	if len(v) == 0 {
		return ""
	}
	if cap(d.arena)-len(d.arena) < len(v) {
		// A new buffer: the strings already made point into the former
		// one, which stays alive while they do.
		d.arena = make([]byte, 0, max(16<<10, len(v)))
	}
	n := len(d.arena)
	d.arena = append(d.arena, v...)
	b := d.arena[n:len(d.arena):len(d.arena)]
	return unsafe.String(&b[0], len(b))
}

func (d *rawDecoder) nullStr(i int) sql.NullString {
	if d.vals[i] == nil {
		return sql.NullString{}
	}
	return sql.NullString{String: d.str(i), Valid: true}
}

// nullInt8 decodes a nullable integer column (key_epoch; the generator's
// nullable integer fields).
func (d *rawDecoder) nullInt8(i int) sql.NullInt64 {
	if d.vals[i] == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: d.int8(i), Valid: true}
}

func (d *rawDecoder) bool(i int) bool {
	v := d.vals[i]
	switch {
	case len(v) != 1:
		d.fail(i, "bad bool")
	case d.binary(i):
		return v[0] == 1
	default:
		return v[0] == 't'
	}
	return false
}

func (d *rawDecoder) binary(i int) bool { return d.fds[i].Format == pgx.BinaryFormatCode }

func (d *rawDecoder) int8(i int) int64 {
	v := d.vals[i]
	switch {
	case v == nil:
		d.fail(i, "unexpected NULL")
	case d.binary(i) && len(v) == 8:
		return int64(binary.BigEndian.Uint64(v))
	case !d.binary(i):
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			d.fail(i, err.Error())
		}
		return n
	default:
		d.fail(i, "bad int8")
	}
	return 0
}

func (d *rawDecoder) float8(i int) sql.NullFloat64 {
	v := d.vals[i]
	switch {
	case v == nil:
		return sql.NullFloat64{}
	case d.binary(i) && len(v) == 8:
		return sql.NullFloat64{Float64: math.Float64frombits(binary.BigEndian.Uint64(v)), Valid: true}
	case !d.binary(i):
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			d.fail(i, err.Error())
		}
		return sql.NullFloat64{Float64: f, Valid: true}
	default:
		d.fail(i, "bad float8")
	}
	return sql.NullFloat64{}
}

// pgTimeOrigin is 2000-01-01 00:00:00 UTC in Unix microseconds: the origin
// of PostgreSQL's binary timestamps (nothing to do with keys-admin's
// key-state epochs).
const pgTimeOrigin = 946684800 * 1000000

func (d *rawDecoder) time(i int) NullTime {
	v := d.vals[i]
	if v == nil {
		return NullTime{}
	}
	if !d.binary(i) || len(v) != 8 {
		// Not expected from pgx; let pgtype decode it.
		var t pgtype.Timestamptz
		if err := t.Scan(string(v)); err != nil {
			d.fail(i, err.Error())
		}
		return nullTime(t)
	}
	us := int64(binary.BigEndian.Uint64(v))
	if us == math.MaxInt64 || us == math.MinInt64 { // ±infinity, as pgtype gives it
		return NullTime{Time: time.Time{}.UTC(), Valid: true}
	}
	return NullTime{Time: time.UnixMicro(us + pgTimeOrigin).UTC(), Valid: true}
}
