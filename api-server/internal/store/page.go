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
	"github.com/jackc/pgx/v5/pgxpool"
)

// Prelude is the request's key, read in the page's own statement: its state
// (keys.StateSQL, in the keyed forms of pgKeyedForms, with Arg as the last
// parameter), or when Cached its organization's key-state epoch alone
// (keys.EpochSQL, in the epoch forms of pgEpochForms), comes in the
// statement's first row and goes to Scan, so that a request makes one
// database round trip and one statement, not two. It is only given to a
// PostgreSQL store; keys.Pending is the one there is. Its statement sees
// the primary: Routed runs it there, alone (RunPrelude), when the page is
// read on a replica.
type Prelude interface {
	// Arg is the value of the keyed forms' last parameter.
	Arg() any
	// Cached reports whether the statement reads the epoch form: one
	// column, the epoch, instead of keys.StateColumns.
	Cached() bool
	// Scan reads the epoch column (Cached) or the key-state columns
	// (keys.StateColumns); no row (pgx.ErrNoRows) or NULLs is a key (or
	// an epoch) not found, not an error.
	Scan(row pgx.Row) error
}

// preludeForm is the form of q that carries pre (none: the page form),
// with the arguments it takes and the number of columns before the page's.
func preludeForm(q queryName, args []any, pre Prelude) (string, []any, int) {
	switch {
	case pre == nil:
		return pgPageForms[q], args, metaCols
	case pre.Cached():
		return pgEpochForms[q], args, metaCols + 1
	}
	return pgKeyedForms[q], append(args, pre.Arg()), metaCols + stateCols
}

// errPreludeSQLite: a Prelude needs PostgreSQL (the caller's mistake).
var errPreludeSQLite = errors.New("store: a Prelude is only sent to PostgreSQL")

// AccountsPage returns the organization's meta (Meta) and a page of its
// accounts (Accounts). On PostgreSQL both come from one statement, sent
// with pre's (if not nil; only on PostgreSQL) in one round trip. The
// caller releases the page (Page.Release) once it has encoded it.
func (s *Store) AccountsPage(ctx context.Context, orgID string, p ListParams, pre Prelude) (Meta, *AccountPage, error) {
	return s.r.accountsPage(ctx, orgID, p, pre)
}

// CampaignsPage is AccountsPage for campaigns.
func (s *Store) CampaignsPage(ctx context.Context, orgID string, p ListParams, pre Prelude) (Meta, *CampaignPage, error) {
	return s.r.campaignsPage(ctx, orgID, p, pre)
}

// InsightsPage is AccountsPage for daily insights, ordered by date
// descending, then id.
func (s *Store) InsightsPage(ctx context.Context, orgID string, p ListParams, pre Prelude) (Meta, *InsightPage, error) {
	return s.r.insightsPage(ctx, orgID, p, pre)
}

// reader reads the pages in one database's dialect, with its own SQL
// (resources_gen.go): pgReader (one statement per page through pgx, raw
// rows decoded by the generated decoders, with the Prelude in the same
// round trip) and sqliteReader (prepared statements, rows scanned by the
// generated scans; no Prelude).
type reader interface {
	accountsPage(ctx context.Context, orgID string, p ListParams, pre Prelude) (Meta, *AccountPage, error)
	campaignsPage(ctx context.Context, orgID string, p ListParams, pre Prelude) (Meta, *CampaignPage, error)
	insightsPage(ctx context.Context, orgID string, p ListParams, pre Prelude) (Meta, *InsightPage, error)
}

// pgReader reads PostgreSQL's pages: pgPageForms through pgPage.
type pgReader struct{ *Store }

func (s pgReader) accountsPage(ctx context.Context, orgID string, p ListParams, pre Prelude) (Meta, *AccountPage, error) {
	q, args := qAccounts, []any{orgID, p.Limit, p.Offset}
	if p.AccountID != "" {
		q, args = qAccountsByAccount, append(args, p.AccountID)
	}
	out := newAccountPage(p.Limit)
	m, err := s.pgPage(ctx, orgID, p.AccountID, q, args, pre, decodeInto(out, decodeAccount))
	if err != nil {
		out.Release()
		return m, nil, fmt.Errorf("list accounts: %w", err)
	}
	return m, out, nil
}

func (s pgReader) campaignsPage(ctx context.Context, orgID string, p ListParams, pre Prelude) (Meta, *CampaignPage, error) {
	q, args := qCampaigns, []any{orgID, p.Limit, p.Offset}
	if p.AccountID != "" {
		q, args = qCampaignsByAccount, append(args, p.AccountID)
	}
	out := newCampaignPage(p.Limit)
	m, err := s.pgPage(ctx, orgID, p.AccountID, q, args, pre, decodeInto(out, decodeCampaign))
	if err != nil {
		out.Release()
		return m, nil, fmt.Errorf("list campaigns: %w", err)
	}
	return m, out, nil
}

// insightsPage reads pages from offset seekFrom on with the seek.
func (s pgReader) insightsPage(ctx context.Context, orgID string, p ListParams, pre Prelude) (Meta, *InsightPage, error) {
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
	out := newInsightPage(p.Limit)
	m, err := s.pgPage(ctx, orgID, p.AccountID, q, args, pre, decodeInto(out, decodeInsight))
	if err != nil {
		out.Release()
		return m, nil, fmt.Errorf("list insights: %w", err)
	}
	return m, out, nil
}

// errColumnCount: a raw row does not have the columns its decoder reads.
var errColumnCount = errors.New("raw row: column count mismatch")

// decodeInto returns pgPage's scan for one resource: the row after its
// first skip columns (meta, and key state), decoded into out (its text in out's arena).
func decodeInto[R any](out *Page[R], decode func([][]byte, []pgconn.FieldDescription, *[]byte) (R, error)) func(pgx.Rows, int) error {
	return func(rows pgx.Rows, skip int) error {
		vals, fds := rows.RawValues(), rows.FieldDescriptions()
		if len(vals) < skip || len(vals) != len(fds) {
			return errColumnCount
		}
		r, err := decode(vals[skip:], fds[skip:], &out.arena)
		if err != nil {
			return err
		}
		out.rows = append(out.rows, r)
		return nil
	}
}

// sqliteReader reads SQLite's pages: two prepared statements each, the
// meta, then the plain list query.
type sqliteReader struct{ *Store }

func (s sqliteReader) accountsPage(ctx context.Context, orgID string, p ListParams, pre Prelude) (Meta, *AccountPage, error) {
	return page(ctx, s.Store, orgID, p, pre, s.Accounts)
}

func (s sqliteReader) campaignsPage(ctx context.Context, orgID string, p ListParams, pre Prelude) (Meta, *CampaignPage, error) {
	return page(ctx, s.Store, orgID, p, pre, s.Campaigns)
}

func (s sqliteReader) insightsPage(ctx context.Context, orgID string, p ListParams, pre Prelude) (Meta, *InsightPage, error) {
	return page(ctx, s.Store, orgID, p, pre, s.Insights)
}

func page[R any](ctx context.Context, s *Store, orgID string, p ListParams, pre Prelude,
	list func(context.Context, string, ListParams) (*Page[R], error)) (Meta, *Page[R], error) {
	if pre != nil {
		return Meta{}, nil, errPreludeSQLite
	}
	m, err := s.Meta(ctx, orgID, p.AccountID)
	if err != nil || !m.AccountFound {
		return m, nil, err
	}
	rows, err := list(ctx, orgID, p)
	return m, rows, err
}

// pgPage runs the list query q in its meta form (pageMetaForm: the meta
// columns first) through pgx, prepared once per connection (pgx's
// statement cache): one statement and one round trip; with pre, in its
// keyed or epoch form (preludeForm: the key's state or epoch columns after
// the meta columns, read by pre.Scan from the first row). scan is called
// for each row, whose meta (and state) columns it skips. A page without
// rows carries no meta, so the meta query (with pre's form) follows then:
// a second round trip, only for empty pages.
func (s *Store) pgPage(ctx context.Context, orgID, accountID string, q queryName, args []any, pre Prelude, scan func(pgx.Rows, int) error) (Meta, error) {
	var m Meta
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return m, err
	}
	defer conn.Release()
	form, args, skip := preludeForm(q, args, pre)
	rows, err := conn.Query(ctx, form, args...)
	if err != nil {
		return m, err
	}
	n := 0
	for rows.Next() {
		if n == 0 {
			if m, err = readMeta(rows, pre); err != nil {
				rows.Close()
				return m, err
			}
		}
		n++
		if err := scan(rows, skip); err != nil {
			rows.Close()
			return m, err
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil || n > 0 {
		return m, err
	}
	return pgMeta(ctx, conn, orgID, accountID, pre)
}

// readMeta reads the meta columns of a page's (or a meta query's) row, and
// gives pre (if not nil) the key-state (or epoch) columns that follow them.
func readMeta(rows pgx.Rows, pre Prelude) (Meta, error) {
	d := rawDecoder{vals: rows.RawValues(), fds: rows.FieldDescriptions()}
	if len(d.vals) < metaCols || len(d.vals) != len(d.fds) {
		return Meta{}, errColumnCount
	}
	m := Meta{DataAsOf: d.time(0).Time, AccountFound: d.int8(1) > 0}
	if d.err != nil {
		return m, fmt.Errorf("read snapshot meta: %w", d.err)
	}
	if pre != nil {
		if err := pre.Scan(stateRow{rows}); err != nil {
			return m, err
		}
	}
	return m, nil
}

// stateRow is a pgx.Row over the key-state (or epoch) columns of a keyed
// (or epoch) form's row, after the meta columns, scanned with the
// connection's type map.
type stateRow struct{ rows pgx.Rows }

func (r stateRow) Scan(dest ...any) error {
	vals, fds := r.rows.RawValues(), r.rows.FieldDescriptions()
	if (len(dest) != stateCols && len(dest) != 1) || len(vals) < metaCols+len(dest) {
		return errColumnCount
	}
	tm := r.rows.Conn().TypeMap()
	for i, d := range dest {
		j := metaCols + i
		if err := tm.Scan(fds[j].DataTypeOID, fds[j].Format, vals[j], d); err != nil {
			return fmt.Errorf("read key state (%s): %w", fds[j].Name, err)
		}
	}
	return nil
}

// pgMeta reads the meta of an empty page on the page's own connection (a
// request holds one connection at a time: the admission gate counts on
// it, never a second one while it waits for the first), with pre's key
// state when pre is not nil.
func pgMeta(ctx context.Context, conn *pgxpool.Conn, orgID, accountID string, pre Prelude) (Meta, error) {
	q, args := qMeta, []any{orgID}
	if accountID != "" {
		q, args = qMetaAccount, append(args, accountID)
	}
	form := pgForm(q)
	if pre != nil {
		form, args, _ = preludeForm(q, args, pre)
	}
	rows, err := conn.Query(ctx, form, args...)
	if err != nil {
		return Meta{}, fmt.Errorf("read snapshot meta: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return Meta{}, fmt.Errorf("read snapshot meta: %w", err)
		}
		return Meta{}, fmt.Errorf("read snapshot meta: %w", pgx.ErrNoRows)
	}
	m, err := readMeta(rows, pre)
	if err != nil {
		return m, err
	}
	rows.Close()
	return m, rows.Err()
}

// RunPrelude runs pre alone, on this store's database (Routed: the
// primary's, when the page is read on a replica); orgID is the
// organization whose epoch a Cached pre reads.
func (s *Store) RunPrelude(ctx context.Context, orgID string, pre Prelude) error {
	if s.pool == nil {
		return errPreludeSQLite
	}
	if pre.Cached() {
		return pre.Scan(s.pool.QueryRow(ctx, pgEpoch, orgID))
	}
	return pre.Scan(s.pool.QueryRow(ctx, pgKeyState, pre.Arg()))
}

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

// nullInt8 decodes a nullable integer column: the generator (gen) uses it
// for a declared nullable integer field; none is declared today.
var _ = (*rawDecoder).nullInt8

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
