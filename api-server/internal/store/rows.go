package store

import (
	"database/sql"
	"sync"

	"github.com/adsnap/svc/api-server/internal/wirejson"
	"github.com/jackc/pgx/v5/pgconn"
)

// Page is one page of rows as a *Page method read it. On PostgreSQL the
// text of its rows lives in one buffer of the page (the arena: the strings
// point into it, unsafe.String, instead of a string allocation each, which
// profiles showed as most of the insights scan's cost), and pages are
// reused through a pool. That memory never leaves this package: a caller
// gets the rows only as JSON (AppendJSON), copied into its own buffer, and
// releases the page after. TestPageRelease poisons released arenas and
// checks that no returned value changes.
type Page[R any] struct {
	rows     []R
	arena    []byte
	pool     *sync.Pool
	codec    *rowCodec[R]
	released bool
}

// rowCodec reads a row of R in each dialect: decode from pgx's raw values
// (rawDecoder, its text into the page's arena), scan from database/sql
// (SQLite). resources_gen.go declares one per resource.
type rowCodec[R any] struct {
	decode func(vals [][]byte, fds []pgconn.FieldDescription, arena *[]byte) (R, error)
	scan   func(*sql.Rows) (R, error)
}

// rowSink takes the rows of a page as a reader reads them: *Page[R] of a
// pooled page (newAccountPage, …).
type rowSink interface {
	// pgRow appends the row of pgx's raw values (its page columns only).
	pgRow(vals [][]byte, fds []pgconn.FieldDescription) error
	// sqlRow appends the current row of rows.
	sqlRow(rows *sql.Rows) error
}

func (p *Page[R]) pgRow(vals [][]byte, fds []pgconn.FieldDescription) error {
	r, err := p.codec.decode(vals, fds, &p.arena)
	if err != nil {
		return err
	}
	p.rows = append(p.rows, r)
	return nil
}

func (p *Page[R]) sqlRow(rows *sql.Rows) error {
	r, err := p.codec.scan(rows)
	if err != nil {
		return err
	}
	p.rows = append(p.rows, r)
	return nil
}

// PageOf returns a page of rows that the caller made (tests, doubles);
// Release leaves them alone.
func PageOf[R any](rows []R) *Page[R] { return &Page[R]{rows: rows} }

// poisonReleased, set by tests, overwrites an arena on release.
var poisonReleased bool

func (p *Page[R]) init(pool *sync.Pool, codec *rowCodec[R], limit int) {
	p.pool, p.codec, p.released = pool, codec, false
	p.rows, p.arena = p.rows[:0], p.arena[:0]
	if cap(p.rows) < limit {
		p.rows = make([]R, 0, limit)
	}
}

// Len is the number of rows read.
func (p *Page[R]) Len() int {
	if p == nil {
		return 0
	}
	return len(p.rows)
}

// jsonRow is a row the generated encoder writes (resources_gen.go).
type jsonRow interface {
	appendJSON(a *wirejson.Appender)
}

// AppendJSON appends the first n rows to b as a JSON array, as the API
// returns them. ok is false if a value has no JSON form (a non-finite
// number, a time outside years 0–9999). A nil page is empty.
func (p *Page[R]) AppendJSON(b []byte, n int) (_ []byte, ok bool) {
	if p == nil {
		return append(b, "[]"...), true
	}
	if p.released {
		panic("store: page used after Release")
	}
	a := wirejson.Appender{B: append(b, '['), OK: true}
	for i := range p.rows[:n] {
		if i > 0 {
			a.B = append(a.B, ',')
		}
		any(&p.rows[i]).(jsonRow).appendJSON(&a)
	}
	a.B = append(a.B, ']')
	return a.B, a.OK
}

// Release returns the page's memory for reuse; the page must not be used
// after. Pages of PageOf are left alone.
func (p *Page[R]) Release() {
	if p == nil || p.pool == nil || p.released {
		return
	}
	p.released = true
	if poisonReleased {
		for i := range p.arena[:cap(p.arena)] {
			p.arena[:cap(p.arena)][i] = 0xff
		}
	}
	if cap(p.rows) > 2*1024 || cap(p.arena) > 1<<20 {
		return
	}
	clear(p.rows[:cap(p.rows)]) // a pooled page keeps no former page's text alive
	p.pool.Put(p)
}
