package store

import (
	"context"
	"io/fs"
	"math"
	"path"
	"strings"
)

// Rows returns the page's rows (tests only: their strings may point into
// the page's arena, valid until Release).
func (p *Page[R]) Rows() []R {
	if p == nil {
		return nil
	}
	return p.rows
}

// PoisonReleased makes Release overwrite a page's arena.
func PoisonReleased(on bool) { poisonReleased = on }

// SeekFrom is seekFrom: the least offset of an insights page read with the
// seek on PostgreSQL.
const SeekFrom = seekFrom

// RunPrelude is runPrelude.
func (s *Store) RunPrelude(ctx context.Context, orgID string, pre Prelude) error {
	return s.runPrelude(ctx, orgID, pre)
}

// InsightsPlain is InsightsPage without the seek: LIMIT/OFFSET at every
// offset (the reference the seek must match).
func (s *Store) InsightsPlain(ctx context.Context, orgID string, p ListParams) (Meta, *InsightPage, error) {
	return s.insightsPage(ctx, orgID, p, nil, math.MaxInt)
}

// MetaAlone reads the meta statement alone (meta.sql or
// meta_by_account.sql).
func (s *Store) MetaAlone(ctx context.Context, orgID, accountID string) (Meta, error) {
	if s.pool == nil {
		return s.r.(sqliteReader).meta(ctx, orgID, accountID)
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return Meta{}, err
	}
	defer conn.Release()
	return pgMeta(ctx, conn, orgID, accountID, nil)
}

// Statement is a declared statement of queries/ (Statements).
type Statement struct {
	Name, PG, SQLite string
	// Lead are the columns a PostgreSQL (LeadPG) and a SQLite
	// (LeadSQLite) row starts with before Columns; Columns are those the
	// generated decoder of its resource reads (nil: not a page).
	LeadPG, LeadSQLite, Columns []string
}

// Statements returns every declared statement with the columns it must
// return, found by its name: accounts…, campaigns… and insights… are
// pages of their resource, meta… the meta alone.
func Statements() []Statement {
	var out []Statement
	meta := []string{"data_as_of", "account_found"}
	leadPG := append(meta, "key_epoch", "data_version") // the epoch of keys-admin's contract (prelude.go); tagcache.go
	for _, q := range statements {
		st := Statement{Name: q.name, PG: q.pg, SQLite: q.sqlite}
		switch {
		case strings.HasPrefix(q.name, "versions"):
			st.LeadPG, st.LeadSQLite, st.Columns = leadPG, meta, []string{"material"}
		case strings.HasPrefix(q.name, "meta"):
			st.LeadPG, st.LeadSQLite, st.Columns = leadPG, meta, []string{}
		case strings.HasPrefix(q.name, "accounts"):
			st.LeadPG, st.Columns = leadPG, accountColumns
		case strings.HasPrefix(q.name, "campaigns"):
			st.LeadPG, st.Columns = leadPG, campaignColumns
		case strings.HasPrefix(q.name, "insights"):
			st.LeadPG, st.Columns = leadPG, insightColumns
		}
		out = append(out, st)
	}
	return out
}

// QueryFiles returns the paths of the files under queries/.
func QueryFiles() []string {
	var out []string
	_ = fs.WalkDir(queryFiles, "queries", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return err
	})
	return out
}

// QueryPath is the file of a statement in a dialect ("postgres", "sqlite").
func QueryPath(dialect, name string) string { return path.Join("queries", dialect, name+".sql") }
