//go:generate go run ./gen -target store -o resources_gen.go

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/adsnap/svc/keys-admin/database"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ListParams selects one page. Limit is the number of rows to read (the API
// asks for one more than it returns, to know whether a next page exists).
// AccountID, when not empty, keeps the rows of that account. From and To
// (YYYY-MM-DD, inclusive) bound insight dates.
type ListParams struct {
	Limit     int
	Offset    int
	AccountID string
	From, To  string
}

// Meta is what every list response needs besides its rows.
type Meta struct {
	// DataAsOf is the newest sync time among the organization's snapshot
	// rows, recorded by the import; the zero time if nothing was imported.
	DataAsOf time.Time
	// AccountFound reports whether the requested account belongs to the
	// organization (true when no account was requested).
	AccountFound bool
}

// Store runs the API's read queries. Every query is scoped by organization
// and served by an index range scan on (organization_id, …).
type Store struct {
	db   *sql.DB
	pool *pgxpool.Pool // PostgreSQL: the *Page statements go through pgx; nil on SQLite
	r    reader
	// stmts are the plain queries of the database's dialect, prepared:
	// SQLite's pages, the meta of PostgreSQL's empty pages (pgPage), and
	// tests.
	stmts map[queryName]*sql.Stmt
}

// seekFrom is the least offset from which an insights page is read with a
// seek on PostgreSQL (pgQueries); below it the plain LIMIT/OFFSET costs
// less than the seek's extra index probe and init plans.
const seekFrom = 64

// Insights pages from offset seekFrom on are positioned without walking the
// rows before them (qInsightsSeek, qInsightsByAccountSeek, PostgreSQL only).
// The day counts kept by triggers (migration
// 20261121140000_insights_day_counts) give, by a running sum over at most
// 90 days, the day on which the requested offset falls and how many of that
// day's rows come before it; the row at the offset is then found among that
// day's rows only, by an index-only scan of a key index, and the page is
// read from that row on by a range scan of the covering index. A plain
// LIMIT/OFFSET walks every row before the offset and evaluates every
// returned column (to_char, numeric::text, …) of each: at offset 10000 that
// is ~11 ms of PostgreSQL time, against a cost that does not depend on the
// offset or the table's size here (api-server/README.md, Performance). The
// result is the same page: the rows at or after (date DESC, id) position $3
// of the window.

// metaCols is the number of meta columns that the page forms
// (pgPageForms) put first.
const metaCols = 2

// pgForm returns the PostgreSQL text of a query.
func pgForm(name queryName) string { return pgQueries[name] }

// New prepares the read queries on db (the texts of its dialect,
// resources_gen.go). Close releases them. On PostgreSQL the pages are read
// through db.Pool.
func New(ctx context.Context, db *database.DB) (*Store, error) {
	s := &Store{db: db.Bun.DB, pool: db.Pool}
	texts := sqliteQueries
	s.r = sqliteReader{s}
	if db.IsPostgres() {
		texts, s.r = pgQueries, pgReader{s}
	}
	s.stmts = make(map[queryName]*sql.Stmt, len(texts))
	for name, q := range texts {
		st, err := s.db.PrepareContext(ctx, q)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("prepare query %s: %w", queryNames[name], err)
		}
		s.stmts[name] = st
	}
	if db.IsPostgres() {
		// The request path's forms read keys-admin's tables too (the key's
		// state, its organization's epoch): a database that lacks one of
		// their migrations fails here, at start, not on every request.
		for _, forms := range []map[queryName]string{pgKeyedForms, pgEpochForms} {
			for name, q := range forms {
				st, err := s.db.PrepareContext(ctx, q)
				if err != nil {
					s.Close()
					return nil, fmt.Errorf("prepare query %s: %w", queryNames[name], err)
				}
				_ = st.Close()
			}
		}
	}
	return s, nil
}

// Close releases the prepared statements (not the database).
func (s *Store) Close() {
	for _, st := range s.stmts {
		st.Close()
	}
}

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

// Meta returns the organization's snapshot time and whether accountID (if
// not empty) is one of its accounts, in one round trip.
func (s *Store) Meta(ctx context.Context, orgID, accountID string) (Meta, error) {
	var (
		m     Meta
		asOf  NullTime
		count int64
		err   error
	)
	if accountID == "" {
		err = s.stmts[qMeta].QueryRowContext(ctx, orgID).Scan(&asOf, &count)
	} else {
		err = s.stmts[qMetaAccount].QueryRowContext(ctx, orgID, accountID).Scan(&asOf, &count)
	}
	if err != nil {
		return m, fmt.Errorf("read snapshot meta: %w", err)
	}
	m.DataAsOf = asOf.Time
	m.AccountFound = count > 0
	return m, nil
}

// Accounts returns a page of the organization's accounts ordered by id,
// by the plain query (SQLite's pages, and tests).
func (s *Store) Accounts(ctx context.Context, orgID string, p ListParams) (*AccountPage, error) {
	q, args := qAccounts, []any{orgID, p.Limit, p.Offset}
	if p.AccountID != "" {
		q, args = qAccountsByAccount, append(args, p.AccountID)
	}
	out := newAccountPage(p.Limit)
	if err := scanRows(ctx, s.stmts[q], args, out, scanAccount); err != nil {
		out.Release()
		return nil, fmt.Errorf("list accounts: %w", err)
	}
	return out, nil
}

// Campaigns returns a page of the organization's campaigns ordered by id.
func (s *Store) Campaigns(ctx context.Context, orgID string, p ListParams) (*CampaignPage, error) {
	q, args := qCampaigns, []any{orgID, p.Limit, p.Offset}
	if p.AccountID != "" {
		q, args = qCampaignsByAccount, append(args, p.AccountID)
	}
	out := newCampaignPage(p.Limit)
	if err := scanRows(ctx, s.stmts[q], args, out, scanCampaign); err != nil {
		out.Release()
		return nil, fmt.Errorf("list campaigns: %w", err)
	}
	return out, nil
}

// Insights returns a page of the organization's daily insights between
// p.From and p.To, ordered by date descending, then id.
func (s *Store) Insights(ctx context.Context, orgID string, p ListParams) (*InsightPage, error) {
	q, args := qInsights, []any{orgID, p.Limit, p.Offset, p.From, p.To}
	if p.AccountID != "" {
		q, args = qInsightsByAccount, append(args, p.AccountID)
	}
	out := newInsightPage(p.Limit)
	if err := scanRows(ctx, s.stmts[q], args, out, scanInsight); err != nil {
		out.Release()
		return nil, fmt.Errorf("list insights: %w", err)
	}
	return out, nil
}

// scanRows runs a prepared query and appends its rows to out.
func scanRows[R any](ctx context.Context, st *sql.Stmt, args []any, out *Page[R], scan func(*sql.Rows) (R, error)) error {
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scan(rows)
		if err != nil {
			return err
		}
		out.rows = append(out.rows, r)
	}
	return rows.Err()
}

// NullTime scans a nullable time stored as timestamptz (PostgreSQL) or as
// text written by bun or in RFC 3339 (SQLite). Time is in UTC.
type NullTime struct {
	Time  time.Time
	Valid bool
}

// timeLayouts are the text forms NullTime accepts: bun's SQLite form, then RFC 3339.
var timeLayouts = []string{"2006-01-02 15:04:05.999999999-07:00", time.RFC3339Nano, "2006-01-02 15:04:05.999999999"}

// Scan implements sql.Scanner.
func (n *NullTime) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		*n = NullTime{}
		return nil
	case time.Time:
		*n = NullTime{Time: x.UTC(), Valid: true}
		return nil
	case string:
		return n.parse(x)
	case []byte:
		return n.parse(string(x))
	}
	return fmt.Errorf("scan time: unsupported type %T", v)
}

func (n *NullTime) parse(s string) error {
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			*n = NullTime{Time: t.UTC(), Valid: true}
			return nil
		}
	}
	return errors.New("scan time: unrecognized time text")
}

// Queries returns the read queries as PostgreSQL runs them (the list
// queries in their meta form), by name, and their epoch forms (the request
// path's, for a key whose state is remembered) as "<name> +epoch": the same
// parameters; for plan checks.
func Queries() map[string]string {
	out := make(map[string]string, 2*len(queryNames))
	for k, name := range queryNames {
		out[name] = pgQueries[k]
		if q, ok := pgPageForms[k]; ok {
			out[name] = q
		}
		if q, ok := pgEpochForms[k]; ok {
			out[name+" +epoch"] = q
		}
	}
	return out
}
