package snapshot

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"
)

// dialect is what an import does differently on PostgreSQL (pgImport,
// postgres.go) and on SQLite (sqliteImport): how staging tables are made
// and written, the form of staged times and dates, the merge's casts, and
// when duplicate or moved insights are found. Everything else is the same
// SQL on both.
type dialect interface {
	// createStage creates st's staging table with cols.
	createStage(ctx context.Context, st *stage, cols []column) error
	// write writes st's pending batch; kept reports that the writer keeps
	// the rows (they must not be reused).
	write(ctx context.Context, st *stage) (kept bool, err error)
	// staged returns once every batch written is in its table, ready for
	// the checks and the merge.
	staged(ctx context.Context, stages []*stage) error
	// close stops what the dialect runs or holds; safe to call again.
	close() error

	// timeValue and dateValue are a staged time and date (day is the
	// date's text, d the same day parsed).
	timeValue(t time.Time) any
	dateValue(day string, d time.Time) any
	// checkInsights is run with the checks: SQLite looks for duplicate and
	// moved insights there, PostgreSQL for duplicates there and for moved
	// insights while merging (mergeInsights).
	checkInsights(ctx context.Context, im *importer) error
	// mergeInsights runs the insights' upsert (see merge), recording the
	// rows it writes in svc_import_touched.
	mergeInsights(ctx context.Context, im *importer) error
	// dropStages drops the staging tables once merged, when commit does not.
	dropStages(ctx context.Context, stages []*stage) error
}

// qStageInsert is SQLite's staging insert (queries/sqlite/stage_insert.sql).
var qStageInsert = query("stage_insert")

// sqliteImport is the SQLite dialect: untyped staging tables, a prepared
// insert per row, text times, no casts.
type sqliteImport struct {
	tx    bun.Tx
	stmts []*sql.Stmt
}

// sqliteTime is the form bun writes times in on SQLite (store.NullTime reads it).
const sqliteTime = "2006-01-02 15:04:05.999999-07:00"

func (d *sqliteImport) createStage(ctx context.Context, st *stage, cols []column) error {
	// A TEMP table of an earlier import on this connection that failed
	// before dropping it.
	if _, err := d.tx.ExecContext(ctx, "DROP TABLE IF EXISTS temp."+st.table); err != nil {
		return fmt.Errorf("create staging table: %w", err)
	}
	if _, err := d.tx.ExecContext(ctx, "CREATE TEMP TABLE "+st.table+" ("+strings.Join(st.columns, ", ")+")"); err != nil {
		return fmt.Errorf("create staging table: %w", err)
	}
	ph := strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")
	q := schema.NewQueryGen(d.tx.Dialect()).FormatQuery(qStageInsert.sqlite, bun.Ident(st.table), bun.Safe(ph))
	stmt, err := d.tx.PrepareContext(ctx, q)
	if err != nil {
		return fmt.Errorf("prepare staging insert: %w", err)
	}
	st.stmt = stmt
	d.stmts = append(d.stmts, stmt)
	return nil
}

func (d *sqliteImport) write(ctx context.Context, st *stage) (bool, error) {
	for _, r := range st.rows {
		if _, err := st.stmt.ExecContext(ctx, r...); err != nil {
			return false, fmt.Errorf("stage a row in %s: %w", st.table, err)
		}
	}
	return false, nil
}

func (d *sqliteImport) staged(context.Context, []*stage) error { return d.close() }

func (d *sqliteImport) close() error {
	for _, s := range d.stmts {
		s.Close() // a no-op when closed already
	}
	return nil
}

func (d *sqliteImport) timeValue(t time.Time) any { return t.UTC().Format(sqliteTime) }

func (d *sqliteImport) dateValue(day string, _ time.Time) any { return day }

func (d *sqliteImport) checkInsights(ctx context.Context, im *importer) error {
	return im.insightConflicts(ctx)
}

// mergeInsights records the rows the upsert will add or rewrite, then
// upserts those.
func (d *sqliteImport) mergeInsights(ctx context.Context, im *importer) error {
	if err := im.runSQL(ctx, qInsightsTouched); err != nil {
		return err
	}
	return im.runSQL(ctx, qInsightsMerge, im.now)
}

func (d *sqliteImport) dropStages(ctx context.Context, stages []*stage) error {
	tables := []string{"svc_import_touched", "svc_import_versions", "svc_import_days", "svc_import_copies"}
	for _, st := range stages {
		tables = append(tables, st.table)
	}
	for _, t := range tables {
		if _, err := d.tx.ExecContext(ctx, "DROP TABLE IF EXISTS temp."+t); err != nil {
			return fmt.Errorf("drop staging table: %w", err)
		}
	}
	return nil
}
