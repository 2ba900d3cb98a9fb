package store

import (
	"context"
	"database/sql"
	"fmt"
)

// sqliteReader reads SQLite's pages with its prepared statements (New):
// the meta statement, then, when the account asked for is the
// organization's, the page's statement, its rows scanned by the generated
// scans. SQLite has no Prelude: keys-admin resolves every key with Lookup
// there.
type sqliteReader struct{ stmts map[*statement]*sql.Stmt }

func (r sqliteReader) page(ctx context.Context, q *statement, args []any, orgID, accountID string, pre Prelude, out rowSink) (Meta, error) {
	if pre != nil {
		return Meta{}, errPreludeSQLite
	}
	m, err := r.meta(ctx, orgID, accountID)
	if err != nil || !m.AccountFound {
		return m, err
	}
	st := r.stmts[q]
	if st == nil {
		return m, fmt.Errorf("statement %s has no SQLite form", q.name)
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return m, err
	}
	defer rows.Close()
	for rows.Next() {
		if err := out.sqlRow(rows); err != nil {
			return m, err
		}
	}
	return m, rows.Err()
}

// meta reads the organization's snapshot time and whether accountID (if
// not empty) is one of its accounts.
func (r sqliteReader) meta(ctx context.Context, orgID, accountID string) (Meta, error) {
	var (
		asOf  NullTime
		count int64
	)
	q, args := qMeta, []any{orgID}
	if accountID != "" {
		q, args = qMetaByAccount, append(args, accountID)
	}
	if err := r.stmts[q].QueryRowContext(ctx, args...).Scan(&asOf, &count); err != nil {
		return Meta{}, fmt.Errorf("read snapshot meta: %w", err)
	}
	return Meta{DataAsOf: asOf.Time, AccountFound: count > 0}, nil
}
