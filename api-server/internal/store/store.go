//go:generate go run ./gen -target store -o resources_gen.go
//go:generate go run ./gen -target regions

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
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
	// version is the organization's data version on PostgreSQL (the
	// data_version meta column: its newest import record; tagcache.go).
	version sql.NullInt64
}

// Store runs the API's read statements (queries/). Every page and meta
// statement is scoped by organization and served by an index range scan on
// (organization_id, …) (TestPlans).
type Store struct {
	db   *sql.DB
	pool *pgxpool.Pool // PostgreSQL: pages are read through pgx; nil on SQLite
	r    reader
	// stmts are SQLite's statements, prepared (nil on PostgreSQL, where
	// pgx prepares each statement once per connection).
	stmts map[*statement]*sql.Stmt
	// fenced is the last ErrNotPrimary of the primary check, nil once a
	// check passes (Fenced, primarycheck.go).
	fenced atomic.Pointer[error]
	// tags keeps pages' tag material by data version (PostgreSQL;
	// tagcache.go).
	tags *tagCache
}

// reader reads pages in one database's dialect: pgReader (read_pg.go: one
// statement, its meta and a Prelude's epoch in its leading columns, rows
// decoded from pgx's raw values) and sqliteReader (read_sqlite.go: the meta
// statement, then the page's; no Prelude).
type reader interface {
	// page reads q with args into out, and the meta of orgID (and of
	// accountID, when not empty) with it.
	page(ctx context.Context, q *statement, args []any, orgID, accountID string, pre Prelude, out rowSink) (Meta, error)
}

// seekFrom is the least offset from which an insights page is read with
// the seek on PostgreSQL (insights_seek.sql); below it the plain
// LIMIT/OFFSET costs less than the seek's extra index probe and init plans.
const seekFrom = 64

// New checks the read statements of db's dialect (queries/) against db and,
// on SQLite, prepares them, so that a database that lacks a migration (the
// api-server's, or keys-admin's key-state epochs, which the PostgreSQL
// statements read) fails here, at start, not on every request. Close
// releases what New prepared.
func New(ctx context.Context, db *database.DB) (*Store, error) {
	pg := db.IsPostgres()
	s := &Store{db: db.Bun.DB, pool: db.Pool, r: sqliteReader{}}
	if pg {
		s.r = pgReader{db.Pool}
		s.tags = &tagCache{}
	} else {
		s.stmts = make(map[*statement]*sql.Stmt, len(statements))
		s.r = sqliteReader{s.stmts}
	}
	for _, q := range statements {
		text := q.text(pg)
		if text == "" {
			continue
		}
		st, err := s.db.PrepareContext(ctx, text)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("prepare statement %s: %w", q.name, err)
		}
		if pg {
			_ = st.Close()
		} else {
			s.stmts[q] = st
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

// Ready reports whether the database answers and, on PostgreSQL, is a
// writable primary (CheckPrimary, primarycheck.go): /readyz's check.
func (s *Store) Ready(ctx context.Context) error { return s.CheckPrimary(ctx) }

// AccountsPage returns the organization's meta and a page of its accounts,
// ordered by id. On PostgreSQL both come from one statement, which also
// reads pre's key-state epoch (pre, if not nil; only on PostgreSQL). The caller
// releases the page (Page.Release) once it has encoded it; when the
// account asked for is not the organization's (Meta.AccountFound false),
// the page may be nil.
func (s *Store) AccountsPage(ctx context.Context, orgID string, p ListParams, pre Prelude) (Meta, *AccountPage, error) {
	q, args := qAccounts, []any{orgID, p.Limit, p.Offset}
	if p.AccountID != "" {
		q, args = qAccountsByAccount, append(args, p.AccountID)
	}
	return readPage(ctx, s, "list accounts", q, args, orgID, p.AccountID, pre, newAccountPage(p.Limit))
}

// CampaignsPage is AccountsPage for campaigns, ordered by id.
func (s *Store) CampaignsPage(ctx context.Context, orgID string, p ListParams, pre Prelude) (Meta, *CampaignPage, error) {
	q, args := qCampaigns, []any{orgID, p.Limit, p.Offset}
	if p.AccountID != "" {
		q, args = qCampaignsByAccount, append(args, p.AccountID)
	}
	return readPage(ctx, s, "list campaigns", q, args, orgID, p.AccountID, pre, newCampaignPage(p.Limit))
}

// InsightsPage is AccountsPage for the daily insights dated p.From to p.To,
// ordered by date descending, then id. On PostgreSQL pages from offset
// seekFrom on are read with the seek.
func (s *Store) InsightsPage(ctx context.Context, orgID string, p ListParams, pre Prelude) (Meta, *InsightPage, error) {
	return s.insightsPage(ctx, orgID, p, pre, seekFrom)
}

// insightsPage is InsightsPage with the seek from offset seek on.
func (s *Store) insightsPage(ctx context.Context, orgID string, p ListParams, pre Prelude, seek int) (Meta, *InsightPage, error) {
	deep := s.pool != nil && p.Offset >= seek // the seek is PostgreSQL's
	q, args := qInsights, []any{orgID, p.Limit, p.Offset, p.From, p.To}
	if deep {
		q = qInsightsSeek
	}
	if p.AccountID != "" {
		q, args = qInsightsByAccount, append(args, p.AccountID)
		if deep {
			q = qInsightsByAccountSeek
		}
	}
	return readPage(ctx, s, "list insights", q, args, orgID, p.AccountID, pre, newInsightPage(p.Limit))
}

// readPage reads q into out with the store's reader; what names the read
// in errors. On error out is released.
func readPage[R any](ctx context.Context, s *Store, what string, q *statement, args []any, orgID, accountID string,
	pre Prelude, out *Page[R]) (Meta, *Page[R], error) {
	m, err := s.r.page(ctx, q, args, orgID, accountID, pre, out)
	if err != nil {
		out.Release()
		return m, nil, fmt.Errorf("%s: %w", what, err)
	}
	return m, out, nil
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
