package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pgReader reads PostgreSQL's pages through pgx: the page's statement, each
// row led by the page's meta (metaCols), prepared once per connection by
// pgx's statement cache, its rows decoded from pgx's raw values by the
// generated decoders (rawdecode.go): one statement and one round trip. With
// a Prelude, the Prelude's statement goes after the page's in the same pgx
// batch: still one round trip. A page without rows carries no meta, so the
// meta statement follows on the same connection: a second round trip, for
// empty pages only. A request holds one connection at a time (the
// admission gate counts on it), never a second one while it waits.
type pgReader struct{ pool *pgxpool.Pool }

func (r pgReader) page(ctx context.Context, q *statement, args []any, orgID, accountID string, pre Prelude, out rowSink) (Meta, error) {
	conn, err := r.pool.Acquire(ctx)
	if err != nil {
		return Meta{}, err
	}
	defer conn.Release()
	m, n, err := pgRows(ctx, conn, q.pg, args, pre, out)
	if err != nil || n > 0 {
		return m, err
	}
	return pgMeta(ctx, conn, orgID, accountID)
}

// pgRows sends the page statement text with args (and pre's, in one batch,
// when pre is not nil) and reads its rows into out. It returns the meta of
// the first row and the number of rows.
func pgRows(ctx context.Context, conn *pgxpool.Conn, text string, args []any, pre Prelude, out rowSink) (m Meta, n int, err error) {
	var (
		rows pgx.Rows
		br   pgx.BatchResults
	)
	if pre == nil {
		rows, err = conn.Query(ctx, text, args...)
	} else {
		b := &pgx.Batch{}
		b.Queue(text, args...)
		pre.Queue(b)
		br = conn.SendBatch(ctx, b)
		rows, err = br.Query()
	}
	if err == nil {
		m, n, err = scanPage(rows, out)
	}
	if rows != nil {
		rows.Close()
	}
	if br != nil {
		// Reads pre's result (and any error of the batch).
		if cerr := br.Close(); err == nil {
			err = cerr
		}
	}
	return m, n, err
}

// scanPage reads the rows of a page statement: the meta from the first
// one's leading columns, the rest of each into out.
func scanPage(rows pgx.Rows, out rowSink) (Meta, int, error) {
	var m Meta
	n := 0
	for rows.Next() {
		vals, fds := rows.RawValues(), rows.FieldDescriptions()
		if len(vals) < metaCols || len(vals) != len(fds) {
			return m, n, errColumnCount
		}
		if n == 0 {
			var err error
			if m, err = readMeta(vals, fds); err != nil {
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
// of the meta statement).
func readMeta(vals [][]byte, fds []pgconn.FieldDescription) (Meta, error) {
	d := rawDecoder{vals: vals, fds: fds}
	if len(vals) < metaCols || len(vals) != len(fds) {
		return Meta{}, errColumnCount
	}
	m := Meta{DataAsOf: d.time(0).Time, AccountFound: d.int8(1) > 0}
	if d.err != nil {
		return m, fmt.Errorf("read snapshot meta: %w", d.err)
	}
	return m, nil
}

// pgMeta reads the meta of an empty page on the page's own connection.
func pgMeta(ctx context.Context, conn *pgxpool.Conn, orgID, accountID string) (Meta, error) {
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
	m, err := readMeta(rows.RawValues(), rows.FieldDescriptions())
	if err != nil {
		return m, err
	}
	rows.Close()
	return m, rows.Err()
}
