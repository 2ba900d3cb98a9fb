package store_test

import (
	"slices"
	"testing"

	"github.com/adsnap/svc/api-server/internal/store/schema"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
)

// TestCoveringIndexes holds the insight pages' indexes to store/schema: the
// pages (insights.sql, insights_seek.sql and their by-account forms) are
// index-only scans of these two indexes, which INCLUDE every column a page
// returns. A field added to schema.Insight with Read set but left out of
// them turns every page into heap fetches, and the seek into a bitmap scan
// and a sort over the window (issue 41's add-a-field trial found it only as
// a TestPlans failure). The field's migration must recreate both indexes
// with the column in INCLUDE.
func TestCoveringIndexes(t *testing.T) {
	b := dbtest.Postgres(t)
	if err := testenv.Migrate(t.Context(), b.DB); err != nil {
		t.Fatal(err)
	}
	var read []string
	for _, f := range schema.Insight.Fields {
		if f.Read && f.Column != "" {
			read = append(read, f.Column)
		}
	}
	for _, index := range []string{"insights_daily_org_date_id_idx", "insights_daily_org_account_date_id_idx"} {
		rows, err := b.DB.QueryContext(t.Context(), `
			SELECT a.attname
			FROM pg_index x
			JOIN pg_class c ON c.oid = x.indexrelid
			JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = ANY (x.indkey)
			WHERE c.relname = ? AND c.relnamespace = current_schema()::regnamespace`, index)
		if err != nil {
			t.Fatal(err)
		}
		var cols []string
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				t.Fatal(err)
			}
			cols = append(cols, c)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		if len(cols) == 0 {
			t.Fatalf("index %s does not exist", index)
		}
		for _, c := range read {
			if !slices.Contains(cols, c) {
				t.Errorf("insights_daily.%s is read by the pages (schema.Insight, Read) but is not in index %s: "+
					"the field's migration must recreate the index with %s in INCLUDE (CONTRIBUTING.md, Adding a field)",
					c, index, c)
			}
		}
	}
}
