package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pgReader reads PostgreSQL's pages through pgx: the page's statement, each
// row led by the page's meta and the key-state epoch (metaCols), prepared
// once per connection by pgx's statement cache, its rows decoded from pgx's
// raw values by the generated decoders (rawdecode.go): one statement and
// one round trip, the Prelude's epoch included. A page without rows carries
// no meta, so the meta statement follows on the same connection: a second
// round trip, for empty pages only. A request holds one connection at a
// time (the admission gate counts on it), never a second one while it
// waits.
type pgReader struct{ pool *pgxpool.Pool }

func (r pgReader) page(ctx context.Context, q *statement, args []any, orgID, accountID string, pre Prelude, out rowSink) (Meta, error) {
	conn, err := r.pool.Acquire(ctx)
	if err != nil {
		return Meta{}, err
	}
	defer conn.Release()
	rows, err := conn.Query(ctx, q.pg, args...)
	if err != nil {
		return Meta{}, err
	}
	m, n, err := scanPage(rows, pre, out)
	if err != nil || n > 0 {
		return m, err
	}
	return pgMeta(ctx, conn, orgID, accountID, pre)
}

// scanPage reads the rows of a page statement: the meta (and pre's epoch)
// from the first one's leading columns, the rest of each into out. It
// closes rows, and returns the number of rows.
func scanPage(rows pgx.Rows, pre Prelude, out rowSink) (Meta, int, error) {
	defer rows.Close()
	var m Meta
	n := 0
	for rows.Next() {
		vals, fds := rows.RawValues(), rows.FieldDescriptions()
		if len(vals) < metaCols || len(vals) != len(fds) {
			return m, n, errColumnCount
		}
		if n == 0 {
			var err error
			if m, err = readMeta(vals, fds, pre); err != nil {
				return m, n, err
			}
		}
		n++
		if err := out.pgRow(vals[metaCols:], fds[metaCols:]); err != nil {
			return m, n, err
		}
	}
	rows.Close()
	return m, n, rows.Err()
}

// readMeta reads the meta columns that lead a row (of a page statement, or
// of the meta statement), and gives pre (if not nil) the key_epoch column.
func readMeta(vals [][]byte, fds []pgconn.FieldDescription, pre Prelude) (Meta, error) {
	d := rawDecoder{vals: vals, fds: fds}
	if len(vals) < metaCols || len(vals) != len(fds) {
		return Meta{}, errColumnCount
	}
	m := Meta{DataAsOf: d.time(0).Time, AccountFound: d.int8(1) > 0, version: d.nullInt8(3)}
	epoch := d.nullInt8(2)
	if d.err != nil {
		return m, fmt.Errorf("read snapshot meta: %w", d.err)
	}
	if pre != nil {
		pre.SetEpoch(epoch.Int64, epoch.Valid)
	}
	return m, nil
}

// pgMeta reads the meta statement on conn (the page's own connection, for
// an empty page), and gives pre (if not nil) its key_epoch.
func pgMeta(ctx context.Context, conn *pgxpool.Conn, orgID, accountID string, pre Prelude) (Meta, error) {
	q, args := qMeta, []any{orgID}
	if accountID != "" {
		q, args = qMetaByAccount, append(args, accountID)
	}
	rows, err := conn.Query(ctx, q.pg, args...)
	if err != nil {
		return Meta{}, fmt.Errorf("read snapshot meta: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		err := rows.Err()
		if err == nil {
			err = pgx.ErrNoRows
		}
		return Meta{}, fmt.Errorf("read snapshot meta: %w", err)
	}
	m, err := readMeta(rows.RawValues(), rows.FieldDescriptions(), pre)
	if err != nil {
		return m, err
	}
	rows.Close()
	return m, rows.Err()
}
