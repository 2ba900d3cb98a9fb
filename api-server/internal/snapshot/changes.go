package snapshot

import (
	"context"
	"time"
)

// What an import changed (CONTRACT-45, DESIGN §4b, §4c): every statement
// of the merge that writes or removes an insight row logs it
// (insight_changes) and adds its day, and the day it left, to
// svc_import_days, a TEMP table of the import's transaction (PostgreSQL: in
// the same statement, RETURNING into CTEs; SQLite: the rows are recorded in
// svc_import_touched before each write, then logged). Every statement that
// changes an account or a campaign records its organization in
// svc_import_versions. The merge writes the upsert, then the complete
// windows, then the rows an account's copies change, so a row is logged
// once. At the end of the merge, in the same transaction, recordChanges
// advances the day versions
// (insight_day_versions) of the touched days, both the day a row left and
// the one it reached, and the organizations' snapshot_versions, recomputes
// the per-day counts and sums of exactly the touched days from the rows
// (PostgreSQL; they replace the delta triggers of migrations 20261121140000
// and 20261126150000), and adds one insight_imports row per organization of
// the document. An identical re-import touches nothing, so it writes
// nothing but its import record.

// The statements of the change log (queries/).
var (
	qLockOrganization = query("lock_organization")
	qTouchedCreate    = query("touched_create")
	qDaysTable        = query("days_table")
	qVersionsCreate   = query("versions_create")
	qChanges          = query("changes")
	qDaysCreate       = query("days_create")
	qDaysAnalyze      = query("days_analyze")
	qDayVersions      = query("day_versions")
	qSnapshotVersions = query("snapshot_versions")
	qSumsDelete       = query("sums_delete")
	qSumsInsert       = query("sums_insert")
	qDayCounts        = query("day_counts")
	qImportRecord     = query("import_record")
	qImportSettings   = query("import_settings")
)

// beginChanges takes the organizations' import locks (PostgreSQL: one
// import at a time writes an organization's rows, so the counts and sums
// recomputed from them see every committed write; in organization order, so
// two imports cannot deadlock) and creates the tables that record what the
// merge changes.
func (im *importer) beginChanges(ctx context.Context, orgs []string) error {
	for _, org := range orgs { // sorted
		if err := im.runSQL(ctx, qLockOrganization, org); err != nil {
			return err
		}
	}
	for _, st := range []*statement{qTouchedCreate, qDaysTable, qVersionsCreate} {
		if err := im.runSQL(ctx, st); err != nil {
			return err
		}
	}
	return nil
}

// recordChanges writes the change log, the versions, the counts and sums
// of the touched days and the organizations' import records, from what
// the merge recorded.
func (im *importer) recordChanges(ctx context.Context, orgs []string) error {
	for _, st := range []*statement{qChanges, qDaysCreate, qDaysAnalyze, qDayVersions, qSnapshotVersions,
		qSumsDelete, qSumsInsert, qDayCounts} {
		if err := im.runSQL(ctx, st, im.now); err != nil {
			return err
		}
	}
	end := im.db.timeValue(time.Now().UTC())
	for _, org := range orgs {
		if err := im.runSQL(ctx, qImportRecord, org, end); err != nil {
			return err
		}
	}
	return nil
}
