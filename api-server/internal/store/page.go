package store

import (
	"context"
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

// Prelude is a statement sent in the round trip of a page, before it, and
// read before it: the request's key lookup (keys.Pending), so that a
// request makes one database round trip, not two. It is only given to a
// PostgreSQL store. Its statement sees the primary: Routed runs it there,
// alone, when the page is read on a replica.
type Prelude interface {
	// Query returns the statement and its arguments.
	Query() (string, []any)
	// Scan reads the statement's one row (pgx.ErrNoRows when none is a
	// result for it to record, not an error).
	Scan(row pgx.Row) error
}

// errPreludeSQLite: a Prelude needs PostgreSQL (the caller's mistake).
var errPreludeSQLite = errors.New("store: a Prelude is only sent to PostgreSQL")

// AccountsPage returns the organization's meta (Meta) and a page of its
// accounts (Accounts). On PostgreSQL both come from one statement, sent
// with pre's (if not nil) in one round trip.
func (s *Store) AccountsPage(ctx context.Context, orgID string, p ListParams, pre Prelude) (Meta, []AccountRow, error) {
	if !s.pg {
		if pre != nil {
			return Meta{}, nil, errPreludeSQLite
		}
		return page(ctx, s, orgID, p, s.Accounts)
	}
	out := make([]AccountRow, 0, p.Limit)
	q, args := qAccounts, []any{orgID, p.Limit, p.Offset}
	if p.AccountID != "" {
		q, args = qAccountsByAccount, append(args, p.AccountID)
	}
	m, err := s.pgPage(ctx, orgID, p.AccountID, q, args, pre, func(rows pgx.Rows) error {
		var r AccountRow
		var last pgtype.Timestamptz
		if err := rows.Scan(nil, nil, &r.ID, &r.AccountName, &r.Currency, &r.Timezone, &r.IsActive, &last); err != nil {
			return err
		}
		r.LastSyncAt = nullTime(last)
		out = append(out, r)
		return nil
	})
	if err != nil {
		return m, nil, fmt.Errorf("list accounts: %w", err)
	}
	return m, out, nil
}

// CampaignsPage is AccountsPage for campaigns.
func (s *Store) CampaignsPage(ctx context.Context, orgID string, p ListParams, pre Prelude) (Meta, []CampaignRow, error) {
	if !s.pg {
		if pre != nil {
			return Meta{}, nil, errPreludeSQLite
		}
		return page(ctx, s, orgID, p, s.Campaigns)
	}
	out := make([]CampaignRow, 0, p.Limit)
	q, args := qCampaigns, []any{orgID, p.Limit, p.Offset}
	if p.AccountID != "" {
		q, args = qCampaignsByAccount, append(args, p.AccountID)
	}
	m, err := s.pgPage(ctx, orgID, p.AccountID, q, args, pre, func(rows pgx.Rows) error {
		var r CampaignRow
		var eff, daily, lifetime pgtype.Text
		var synced pgtype.Timestamptz
		if err := rows.Scan(nil, nil, &r.ID, &r.PlatformAdAccountID, &r.Name, &r.Objective, &r.Status, &eff,
			&daily, &lifetime, &synced, &r.Currency, &r.Timezone); err != nil {
			return err
		}
		r.EffectiveStatus, r.DailyBudget, r.LifetimeBudget = nullString(eff), nullString(daily), nullString(lifetime)
		r.SyncedAt = nullTime(synced)
		out = append(out, r)
		return nil
	})
	if err != nil {
		return m, nil, fmt.Errorf("list campaigns: %w", err)
	}
	return m, out, nil
}

// InsightBuf is memory that InsightsPage reuses from one call to the next:
// the rows and the text their strings point into. The rows of a call are
// valid until the next call with the same InsightBuf. The zero value is
// ready to use; a buffer must not be used by two calls at once.
type InsightBuf struct {
	rows []InsightRow
	text []byte
}

// InsightsPage is AccountsPage for daily insights. On PostgreSQL the rows
// are read into buf (nil: new memory); SQLite's scan allocates its own.
func (s *Store) InsightsPage(ctx context.Context, orgID string, p ListParams, buf *InsightBuf, pre Prelude) (Meta, []InsightRow, error) {
	if !s.pg {
		if pre != nil {
			return Meta{}, nil, errPreludeSQLite
		}
		return page(ctx, s, orgID, p, s.Insights)
	}
	if buf == nil {
		buf = &InsightBuf{}
	}
	out := buf.rows[:0]
	if out == nil {
		out = make([]InsightRow, 0, p.Limit)
	}
	d := rawDecoder{arena: buf.text[:0]}
	defer func() { buf.rows, buf.text = out, d.arena }()
	seek := p.Offset >= seekFrom
	q, args := qInsights, []any{orgID, p.Limit, p.Offset, p.From, p.To}
	if seek {
		q = qInsightsSeek
	}
	if p.AccountID != "" {
		q, args = qInsightsByAccount, append(args, p.AccountID)
		if seek {
			q = qInsightsByAccountSeek
		}
	}
	m, err := s.pgPage(ctx, orgID, p.AccountID, q, args, pre, func(rows pgx.Rows) error {
		d.start(rows)
		var r InsightRow
		r.ID, r.PlatformAdAccountID, r.AttributionWindow = d.str(0), d.str(1), d.str(2)
		r.CampaignID = d.nullStr(3)
		r.Date, r.SyncedAt = d.str(4), d.time(5)
		r.Currency, r.Timezone, r.PurchaseMeasurement = d.str(6), d.str(7), d.str(8)
		r.Spend, r.CTR, r.CPC, r.CPM = d.str(9), d.str(10), d.str(11), d.str(12)
		r.Impressions, r.Reach, r.Clicks = d.int8(13), d.int8(14), d.int8(15)
		r.Purchases, r.PurchaseValue, r.ROAS = d.float8(16), d.float8(17), d.float8(18)
		if d.err != nil {
			return d.err
		}
		out = append(out, r)
		return nil
	})
	if err != nil {
		return m, nil, fmt.Errorf("list insights: %w", err)
	}
	return m, out, nil
}

// page is the SQLite form of the *Page methods: two queries.
func page[T any](ctx context.Context, s *Store, orgID string, p ListParams,
	list func(context.Context, string, ListParams) ([]T, error)) (Meta, []T, error) {
	m, err := s.Meta(ctx, orgID, p.AccountID)
	if err != nil || !m.AccountFound {
		return m, nil, err
	}
	rows, err := list(ctx, orgID, p)
	return m, rows, err
}

// pgPage runs the list query q in its meta form (pageMetaForm: the meta
// columns first) through pgx, prepared once per connection (pgx's
// statement cache): one statement and one round trip; with pre, pre's
// statement and q's are sent together in one batch (one round trip still),
// and pre's row is read first. scan is called for each row, whose first
// metaCols columns it skips. A page without rows carries no meta, so the
// meta query follows then (a second round trip, only for empty pages).
func (s *Store) pgPage(ctx context.Context, orgID, accountID string, q queryName, args []any, pre Prelude, scan func(pgx.Rows) error) (Meta, error) {
	var m Meta
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return m, err
	}
	defer conn.Release()
	var rows pgx.Rows
	if pre == nil {
		rows, err = conn.Query(ctx, pgPageForms[q], args...)
	} else {
		var b pgx.Batch
		sql, preArgs := pre.Query()
		b.Queue(sql, preArgs...)
		b.Queue(pgPageForms[q], args...)
		br := conn.SendBatch(ctx, &b)
		if err = pre.Scan(br.QueryRow()); err == nil {
			rows, err = br.Query()
		}
		if err != nil {
			br.Close()
			return m, err
		}
		defer br.Close()
	}
	if err != nil {
		return m, err
	}
	n := 0
	for rows.Next() {
		if n == 0 {
			d := rawDecoder{vals: rows.RawValues(), fds: rows.FieldDescriptions()}
			m = Meta{DataAsOf: d.time(0).Time, AccountFound: d.int8(1) > 0}
			if d.err != nil {
				rows.Close()
				return m, fmt.Errorf("read snapshot meta: %w", d.err)
			}
		}
		n++
		if err := scan(rows); err != nil {
			rows.Close()
			return m, err
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil || n > 0 {
		return m, err
	}
	return s.pgMeta(ctx, orgID, accountID)
}

// pgMeta reads the meta of an empty page.
func (s *Store) pgMeta(ctx context.Context, orgID, accountID string) (Meta, error) {
	var asOf pgtype.Timestamptz
	var count int64
	var err error
	if accountID == "" {
		err = s.pool.QueryRow(ctx, pgForm(qMeta), orgID).Scan(&asOf, &count)
	} else {
		err = s.pool.QueryRow(ctx, pgForm(qMetaAccount), orgID, accountID).Scan(&asOf, &count)
	}
	if err != nil {
		return Meta{}, fmt.Errorf("read snapshot meta: %w", err)
	}
	return Meta{DataAsOf: nullTime(asOf).Time, AccountFound: count > 0}, nil
}

// RunPrelude runs pre alone, on this store's database (Routed: the
// primary's, when the page is read on a replica).
func (s *Store) RunPrelude(ctx context.Context, pre Prelude) error {
	if !s.pg {
		return errPreludeSQLite
	}
	sql, args := pre.Query()
	return pre.Scan(s.pool.QueryRow(ctx, sql, args...))
}

func nullTime(t pgtype.Timestamptz) NullTime {
	if !t.Valid {
		return NullTime{}
	}
	return NullTime{Time: t.Time.UTC(), Valid: true}
}

func nullString(t pgtype.Text) sql.NullString {
	return sql.NullString{String: t.String, Valid: t.Valid}
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

// start reads the row's columns after the meta columns.
func (d *rawDecoder) start(rows pgx.Rows) {
	d.vals, d.fds = rows.RawValues()[metaCols:], rows.FieldDescriptions()[metaCols:]
	if len(d.vals) != len(d.fds) && d.err == nil {
		d.err = errors.New("raw row: column count mismatch")
	}
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

// pgEpoch is 2000-01-01 00:00:00 UTC, the origin of binary timestamps.
const pgEpochMicros = 946684800 * 1000000

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
	return NullTime{Time: time.UnixMicro(us + pgEpochMicros).UTC(), Valid: true}
}
