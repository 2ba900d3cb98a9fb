package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// GET /insights/freshness (issue 46): how fresh the organization's insights
// are, from the import's own record (insight_imports, written by the import
// in its transaction; CONTRACT-45): when the last import committed and the
// days it changed, which later imports may change again.

var qInsightFreshness = query("insight_freshness")

// Freshness is the organization's snapshot meta and its last import.
type Freshness struct {
	Meta
	// Imported reports whether an import is recorded; the fields below are
	// its, zero otherwise.
	Imported         bool
	CommittedAt      time.Time
	Upserts, Deletes int64
	// ChangedDays are the days (YYYY-MM-DD, ascending) whose rows the last
	// import changed or removed.
	ChangedDays []string
}

// InsightFreshness returns the organization's freshness. On PostgreSQL the
// meta statement also reads pre's key-state epoch (pre, if not nil).
func (s *Store) InsightFreshness(ctx context.Context, orgID string, pre Prelude) (Freshness, error) {
	var (
		f       Freshness
		err     error
		changed string
		at      NullTime
	)
	if s.pool != nil {
		conn, cerr := s.pool.Acquire(ctx)
		if cerr != nil {
			return f, fmt.Errorf("insight freshness: %w", cerr)
		}
		defer conn.Release()
		if f.Meta, err = pgMeta(ctx, conn, orgID, "", pre); err != nil {
			return f, fmt.Errorf("insight freshness: %w", err)
		}
		err = conn.QueryRow(ctx, qInsightFreshness.pg, orgID).Scan(&at, &f.Upserts, &f.Deletes, &changed)
	} else {
		if pre != nil {
			return f, errPreludeSQLite
		}
		if f.Meta, err = (sqliteReader{s.stmts}).meta(ctx, orgID, ""); err != nil {
			return f, fmt.Errorf("insight freshness: %w", err)
		}
		err = s.stmts[qInsightFreshness].QueryRowContext(ctx, orgID).Scan(&at, &f.Upserts, &f.Deletes, &changed)
	}
	switch {
	case errors.Is(err, pgx.ErrNoRows) || errors.Is(err, sql.ErrNoRows):
		f.ChangedDays = []string{}
		return f, nil
	case err != nil:
		return f, fmt.Errorf("insight freshness: %w", err)
	}
	f.Imported, f.CommittedAt = true, at.Time
	if err := json.Unmarshal([]byte(changed), &f.ChangedDays); err != nil {
		return f, fmt.Errorf("insight freshness: changed_days: %w", err)
	}
	if f.ChangedDays == nil {
		f.ChangedDays = []string{}
	}
	return f, nil
}

// InsightFreshness reads on a replica when one is healthy.
func (r *Routed) InsightFreshness(ctx context.Context, orgID string, pre Prelude) (Freshness, error) {
	_, f, err := routed(ctx, r, orgID, pre, func(s *Store, pre Prelude) (Meta, Freshness, error) {
		f, err := s.InsightFreshness(ctx, orgID, pre)
		return f.Meta, f, err
	})
	return f, err
}
