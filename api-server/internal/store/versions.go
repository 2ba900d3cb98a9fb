package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The data versions of a page (DESIGN §4c): what an ETag is derived from.
// A versions statement (queries/*/versions_*.sql) reads, without the page's
// rows, the material that changes exactly when the page's rows may have:
// the versions of the days or the resource it covers (insight_day_versions,
// snapshot_versions, which the import advances), with the row counts that
// position a page by its offset. Its row is led by the meta columns, so on
// PostgreSQL it carries the Prelude's key-state epoch as a page does.

// Resource names what a page lists, for its versions statement.
type Resource int

// The resources that carry tags.
const (
	Accounts Resource = iota
	Campaigns
	Insights
	Summary
)

var (
	versionStatements = [...]*statement{
		Accounts:  query("versions_accounts"),
		Campaigns: query("versions_campaigns"),
		Insights:  query("versions_insights"),
		Summary:   query("versions_summary"),
	}
	qVersionsInsightsByAccount = query("versions_insights_by_account")
)

// VersionParams selects the page whose versions are read: ListParams
// (Limit the rows read, one more than returned) for the lists, and the
// window and account for the summary, whose versions cover every day of
// its window whatever the page.
type VersionParams = ListParams

// versionStatement is the versions statement of r and its arguments.
func versionStatement(r Resource, orgID string, p VersionParams) (*statement, []any) {
	switch r {
	case Insights:
		if p.AccountID != "" {
			return qVersionsInsightsByAccount, []any{orgID, p.Limit, p.Offset, p.From, p.To, p.AccountID}
		}
		return versionStatements[r], []any{orgID, p.Limit, p.Offset, p.From, p.To}
	case Summary:
		return versionStatements[r], []any{orgID, p.From, p.To, p.AccountID}
	}
	return versionStatements[r], []any{orgID, p.AccountID}
}

// errNoResource: a Resource outside the constants (the caller's mistake).
var errNoResource = errors.New("store: no versions statement for this resource")

// Versions reads the tag material of the page p of r: the organization's
// meta (and whether p.AccountID is one of its accounts) and a text that is
// the same exactly while the page's rows are. On PostgreSQL it is one
// statement, which also reads pre's key-state epoch (pre, if not nil).
func (s *Store) Versions(ctx context.Context, orgID string, r Resource, p VersionParams, pre Prelude) (Meta, string, error) {
	if r < 0 || int(r) >= len(versionStatements) {
		return Meta{}, "", errNoResource
	}
	q, args := versionStatement(r, orgID, p)
	var (
		m        Meta
		material string
		err      error
	)
	if s.pool != nil {
		m, material, err = s.pgVersions(ctx, q, args, pre)
	} else if pre != nil {
		err = errPreludeSQLite
	} else {
		var asOf NullTime
		var found int64
		err = s.stmts[q].QueryRowContext(ctx, args...).Scan(&asOf, &found, &material)
		m = Meta{DataAsOf: asOf.Time, AccountFound: found > 0}
	}
	if err != nil {
		return m, "", fmt.Errorf("read data versions: %w", err)
	}
	return m, material, nil
}

// pgVersions reads the versions statement q on one connection, released
// before it returns (a request holds one connection at a time).
func (s *Store) pgVersions(ctx context.Context, q *statement, args []any, pre Prelude) (Meta, string, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return Meta{}, "", err
	}
	defer conn.Release()
	rows, err := conn.Query(ctx, q.pg, args...)
	if err != nil {
		return Meta{}, "", err
	}
	return scanVersions(rows, pre)
}

// scanVersions reads the one row of a versions statement, and closes rows:
// its meta (the organization's data version included) and its material.
func scanVersions(rows pgx.Rows, pre Prelude) (Meta, string, error) {
	defer rows.Close()
	if !rows.Next() {
		return Meta{}, "", errors.Join(errColumnCount, rows.Err())
	}
	vals, fds := rows.RawValues(), rows.FieldDescriptions()
	if len(vals) != metaCols+1 || len(fds) != len(vals) {
		return Meta{}, "", errColumnCount
	}
	m, err := readMeta(vals[:metaCols], fds[:metaCols], pre)
	if err != nil {
		return m, "", err
	}
	material := string(vals[metaCols])
	rows.Close()
	return m, material, rows.Err()
}

// Conditional reads the versions of the page p of r (Versions), hands them
// to skip, and, unless skip reports that the page need not be read (the
// client's copy is current, or skip has answered otherwise), calls read
// with the store to read the page, and returns read's error. The page is
// read after its versions and on the same database, so it is never older
// than the tag made from them. pre's epoch is read with the versions.
//
// When the request is not conditional (cond false) the page is read
// anyway: on PostgreSQL a list's versions statement then travels with the
// page's in one batch, one round trip (batchReader), and skip is called
// after read, whose page the caller releases when skip answers.
func (s *Store) Conditional(ctx context.Context, orgID string, r Resource, p VersionParams, pre Prelude, cond bool,
	skip func(Meta, string) bool, read func(*Store, Prelude) (Meta, error)) error {
	if !cond && s.pool != nil && r != Summary {
		vq, vargs := versionStatement(r, orgID, p)
		b := &batchReader{pool: s.pool, q: vq, args: vargs, pre: pre, cache: s.tags, key: tagKey{orgID, r, p}}
		// s with the batch as its reader (fenced aside: the copy only reads).
		cp := &Store{db: s.db, pool: s.pool, r: b, stmts: s.stmts}
		if _, err := read(cp, nil); err != nil { // the batch gives pre its epoch
			return err
		}
		if !b.done {
			return errNoResource
		}
		skip(b.m, b.material)
		return nil
	}
	key := tagKey{orgID, r, p}
	if kept, ok := s.tags.get(key); ok && !cond && r == Summary {
		return s.keptSummary(ctx, key, kept, pre, skip, read)
	}
	m, material, err := s.Versions(ctx, orgID, r, p, pre)
	if err != nil {
		return err
	}
	if m.version.Valid {
		s.tags.put(key, tagEntry{version: m.version.Int64, material: material})
	}
	if skip(m, material) {
		return nil
	}
	_, err = read(s, nil) // pre's epoch was read with the versions
	return err
}

// Conditional is Store.Conditional on a healthy replica (the versions and
// the page on the same one, pre's epoch on the primary before them), or
// on the primary. A replica's failure, of the versions or of read, is
// retried on the primary, skip included.
func (r *Routed) Conditional(ctx context.Context, orgID string, res Resource, p VersionParams, pre Prelude, cond bool,
	skip func(Meta, string) bool, read func(*Store, Prelude) (Meta, error)) error {
	_, _, err := routed(ctx, r, orgID, pre, func(s *Store, pre Prelude) (Meta, struct{}, error) {
		return Meta{}, struct{}{}, s.Conditional(ctx, orgID, res, p, pre, cond, skip, read)
	})
	return err
}

// batchReader is pgReader with a versions statement sent ahead of the
// page's statement in one batch: one round trip for both (Conditional).
// The versions' row gives pre its epoch; m and material are theirs.
type batchReader struct {
	pool     *pgxpool.Pool
	q        *statement
	args     []any
	pre      Prelude
	m        Meta
	material string // "" when the page has no tag (tagcache.go)
	done     bool   // the versions were read
	// cache keeps the material of key by data version (tagcache.go).
	cache *tagCache
	key   tagKey
}

func (b *batchReader) page(ctx context.Context, q *statement, args []any, orgID, accountID string, _ Prelude, out rowSink) (Meta, error) {
	conn, err := b.pool.Acquire(ctx)
	if err != nil {
		return Meta{}, err
	}
	defer conn.Release()
	if kept, ok := b.cache.get(b.key); ok {
		return b.cachedPage(ctx, conn, kept, q, args, orgID, accountID, out)
	}
	var batch pgx.Batch
	batch.Queue(b.q.pg, b.args...)
	batch.Queue(q.pg, args...)
	br := conn.SendBatch(ctx, &batch)
	rows, err := br.Query()
	if err == nil {
		b.m, b.material, err = scanVersions(rows, b.pre)
		if err == nil && b.m.version.Valid {
			b.cache.put(b.key, tagEntry{version: b.m.version.Int64, material: b.material})
		}
	}
	var m Meta
	n := 0
	if err == nil {
		b.done = true
		if rows, err = br.Query(); err == nil {
			m, n, err = scanPage(rows, nil, out)
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil || n > 0 {
		return m, err
	}
	return pgMeta(ctx, conn, orgID, accountID, nil)
}
