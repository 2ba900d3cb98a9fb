package snapshot

import (
	"context"
	"database/sql"
)

// Staging: each element, once validated, becomes a row of its kind's
// staging table, a TEMP table of the import's transaction (dropped at
// commit on PostgreSQL, before it on SQLite), so nothing of it outlives
// the import or is seen by another session. Rows are written in batches of
// batchRows: on PostgreSQL by COPY from a writer goroutine while the next
// batch is decoded (postgres.go), on SQLite by a prepared insert per row
// (sqlite.go). The checks and the merge then read the staging tables.

// batchRows is the number of rows a staging batch holds before it is written.
const batchRows = 5000

// stage is the staging table of one kind and its pending batch.
type stage struct {
	table   string
	columns []string
	rows    [][]any
	spare   [][]any   // written rows to reuse (SQLite: the writer does not keep them)
	stmt    *sql.Stmt // SQLite: the prepared insert
}

// createStages creates the staging table of every kind but organizations
// (kept in memory, see importer).
func (im *importer) createStages(ctx context.Context) error {
	for k := kindAccount; k < numKinds; k++ {
		st := &stage{table: stageTable(k)}
		for _, c := range stageColumns[k] {
			st.columns = append(st.columns, c.name)
		}
		if err := im.db.createStage(ctx, st, stageColumns[k]); err != nil {
			return err
		}
		im.stages[k] = st
	}
	return nil
}

// row returns an empty row to fill (a reused one when there is one).
func (st *stage) row() []any {
	if n := len(st.spare); n > 0 {
		row := st.spare[n-1][:0]
		st.spare = st.spare[:n-1]
		return row
	}
	return make([]any, 0, len(st.columns))
}

// add appends a filled row to the batch and writes the batch when full.
func (st *stage) add(ctx context.Context, im *importer, row []any) error {
	st.rows = append(st.rows, row)
	if len(st.rows) >= batchRows {
		return st.flush(ctx, im)
	}
	return nil
}

// flush writes the pending batch.
func (st *stage) flush(ctx context.Context, im *importer) error {
	if len(st.rows) == 0 {
		return nil
	}
	kept, err := im.db.write(ctx, st)
	if err != nil {
		return err
	}
	if kept { // the writer owns the batch from now on
		st.rows = make([][]any, 0, batchRows)
	} else {
		for _, r := range st.rows {
			clear(r)
			st.spare = append(st.spare, r)
		}
		st.rows = st.rows[:0]
	}
	im.report(PhaseReading)
	return nil
}

// flushAll writes every pending batch and waits until all are in their
// tables. After a problem nothing was staged, and nothing is written.
func (im *importer) flushAll(ctx context.Context) error {
	if im.probs.total > 0 {
		return nil
	}
	for k := kindAccount; k < numKinds; k++ {
		if err := im.stages[k].flush(ctx, im); err != nil {
			return err
		}
	}
	return im.db.staged(ctx, im.stages[kindAccount:])
}
