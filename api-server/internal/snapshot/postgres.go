package snapshot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
)

// pgImport is the PostgreSQL dialect: typed staging tables written by COPY
// from a writer goroutine on the import's connection, while the next batch
// is decoded (two cores: the decoder and the server both busy); native
// times and dates; numeric casts; and an insights merge that skips
// unchanged rows and finds duplicate and moved ones itself.
type pgImport struct {
	tx   bun.Tx
	conn bun.Conn

	jobs     chan copyJob
	writerCh chan error
	writeErr error
	// writerFailed is set when a copy failed, so that reading stops.
	writerFailed atomic.Bool
}

// copyJob is one batch for the writer.
type copyJob struct {
	table   string
	columns []string
	rows    [][]any
}

// newPGImport returns the dialect with its writer started.
func newPGImport(ctx context.Context, tx bun.Tx, conn bun.Conn) *pgImport {
	d := &pgImport{tx: tx, conn: conn}
	d.startWriter(ctx)
	return d
}

// startWriter starts the goroutine that copies batches into the staging
// tables on the import's connection.
func (d *pgImport) startWriter(ctx context.Context) {
	jobs, done := make(chan copyJob, 2), make(chan error, 1)
	d.jobs, d.writerCh = jobs, done
	go func() {
		var failed error
		for j := range jobs {
			if failed != nil {
				continue
			}
			failed = d.conn.Raw(func(dc any) error {
				c, ok := dc.(*stdlib.Conn)
				if !ok {
					return errors.New("postgres connection is not a pgx connection")
				}
				_, err := c.Conn().CopyFrom(ctx, pgx.Identifier{j.table}, j.columns, pgx.CopyFromRows(j.rows))
				if err != nil {
					return fmt.Errorf("copy into %s: %w", j.table, err)
				}
				return nil
			})
			if failed != nil {
				d.writerFailed.Store(true)
			}
		}
		done <- failed
	}()
}

// close waits for the writer to finish the batches it was given and
// returns its first error. It is safe to call more than once.
func (d *pgImport) close() error {
	if d.jobs == nil {
		return d.writeErr
	}
	close(d.jobs)
	d.jobs = nil
	d.writeErr = <-d.writerCh
	return d.writeErr
}

func (d *pgImport) createStage(ctx context.Context, st *stage, cols []column) error {
	defs := make([]string, len(cols))
	for i, c := range cols {
		defs[i] = c.name + " " + c.pgType
	}
	q := "CREATE TEMP TABLE " + st.table + " (" + strings.Join(defs, ", ") + ") ON COMMIT DROP"
	if _, err := d.tx.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("create staging table: %w", err)
	}
	return nil
}

func (d *pgImport) write(ctx context.Context, st *stage) (bool, error) {
	if d.writerFailed.Load() {
		return false, d.close()
	}
	select {
	case d.jobs <- copyJob{table: st.table, columns: st.columns, rows: st.rows}:
		return true, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

func (d *pgImport) staged(ctx context.Context, stages []*stage) error {
	if err := d.close(); err != nil {
		return err
	}
	// Statistics, so that the checks and merges join sensibly: of the
	// columns they join and group on only (analyzeColumns). All 24
	// columns of the insights took 280 ms at 100,000 rows, these 70 ms:
	// 6 % of that import's time.
	for k, st := range stages {
		cols := analyzeColumns(kindAccount + kind(k))
		if _, err := d.tx.ExecContext(ctx, "ANALYZE "+st.table+" ("+strings.Join(cols, ", ")+")"); err != nil {
			return fmt.Errorf("analyze staging table: %w", err)
		}
	}
	return nil
}

func (d *pgImport) timeValue(t time.Time) any { return t }

func (d *pgImport) dateValue(_ string, day time.Time) any { return day }

// checkInsights looks for insight ids the document repeats (one grouping
// of the staged ids: 100 ms at 100,000 rows, under 2 % of a fresh import):
// the merge's UPDATE would apply one of a stored row's repeats silently.
// Rows that would move to another organization cost nothing beforehand:
// mergeInsights finds them.
func (d *pgImport) checkInsights(ctx context.Context, im *importer) error {
	return im.duplicates(ctx, kindInsight)
}

// mergeInsights updates and inserts the staged insight rows in one
// statement (insights_merge.sql), which also records the rows it writes. A
// row that did not change is not rewritten, and a row that would change
// organization (SVC01, raised by pg_temp.svc_import_moved, so that the
// common case costs no extra join) or an id that another organization's
// import inserted meanwhile (23505) stop the statement, after which the
// checks SQLite runs beforehand name the elements. The foreign-key triggers
// are skipped when the role may (fkrelax.go).
//
// The statement is an UPDATE and an INSERT … WHERE NOT EXISTS, both on the
// statement's snapshot, not INSERT … ON CONFLICT DO UPDATE: ON CONFLICT
// locks every conflicting row before comparing it (a tuple lock, with its
// WAL, for each unchanged row of a re-import) and probes the unique index
// before each insert. Re-importing an unchanged 100,000-row document
// (issue 45's bench document): the merge took 666 ms as ON CONFLICT and
// 410-452 ms as the two, plus 100 ms for checkInsights' grouping, and wrote
// 470 kB of WAL instead of 29 MB; the whole re-import's time (2.5-3.0 s)
// did not move beyond the noise, nor did a fresh import's. The UPDATE
// would apply one of a stored id's repeats silently, so checkInsights
// refuses repeated ids first.
func (d *pgImport) mergeInsights(ctx context.Context, im *importer) error {
	if err := im.runSQL(ctx, qMovedFunction); err != nil {
		return err
	}
	relaxed, err := relaxForeignKeys(ctx, im)
	if err != nil {
		return err
	}
	if _, err := d.tx.ExecContext(ctx, "SAVEPOINT svc_import_insights"); err != nil {
		return fmt.Errorf("upsert insights: %w", err)
	}
	_, err = d.tx.ExecContext(ctx, qInsightsMerge.pg, im.now)
	if relaxed && err == nil {
		if err := restoreForeignKeys(ctx, d.tx); err != nil {
			return err
		}
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && (pe.Code == "23505" || pe.Code == "SVC01") {
		if _, err := d.tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT svc_import_insights"); err != nil {
			return fmt.Errorf("upsert insights: %w", err)
		}
		if err := im.insightConflicts(ctx); err != nil {
			return err
		}
		if err := im.probs.err(); err != nil {
			return err
		}
		return fmt.Errorf("upsert insights: %w", pe)
	}
	if err != nil {
		return fmt.Errorf("upsert insights: %w", err)
	}
	return nil
}

func (d *pgImport) dropStages(context.Context, []*stage) error { return nil } // ON COMMIT DROP
