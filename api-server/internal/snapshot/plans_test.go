package snapshot_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/snapshot"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/uptrace/bun"
)

// TestImportPlans: on PostgreSQL, the insights merge and the statements
// every import runs after it (the versions, counts and sums of the touched
// days, the import record) read the big tables by index when an import
// touches a few days of a large organization, the common re-import: no
// sequential scan of insights_daily, its sums and counts, the day versions
// or the change log.
func TestImportPlans(t *testing.T) {
	b := dbtest.Postgres(t)
	ctx := t.Context()
	today := time.Now().UTC()
	testenv.Seed(t, b.DB, today)
	for _, q := range []string{
		`INSERT INTO insights_daily (id, organization_id, account_id, platform_ad_account_id, currency, timezone, date,
		   attribution_window, purchase_measurement, spend, ctr, cpc, cpm, impressions, reach, clicks, updated_at)
		 SELECT 'ins_plan_' || i, 'org_a', 'acc_a' || (1 + i % 2), 'p', 'EUR', 'UTC', current_date - (i % 20000),
		   'w', 'unavailable', 1.5, 1, 1, 1, 1, 1, 1, now() FROM generate_series(1, 40000) i`,
		`SELECT insights_daily_aggregates_refresh()`,
		`INSERT INTO insight_day_versions SELECT organization_id, account_id, date, 1 FROM insights_daily_account_counts ON CONFLICT DO NOTHING`,
		`INSERT INTO insight_changes (organization_id, insight_id, account_id, date, kind)
		 SELECT 'org_a', 'ins_plan_' || i, 'acc_a1', current_date, 'upsert' FROM generate_series(1, 40000) i`,
		`ANALYZE`,
	} {
		if _, err := b.DB.ExecContext(ctx, q); err != nil {
			t.Fatalf("%.40s: %v", q, err)
		}
	}
	conn, err := b.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	// Two staged rows: one stored, restated, and one new.
	staged := `INSERT INTO svc_import_insights (ord, id, account_id, date, attribution_window, purchase_measurement,
	    spend, ctr, cpc, cpm, impressions, reach, clicks)
	  VALUES (0, 'ins_plan_3', 'acc_a1', current_date - 3, 'w', 'unavailable', '2.5', '1', '1', '1', 1, 1, 1),
	         (1, 'ins_plan_new', 'acc_a2', current_date - 4, 'w', 'unavailable', '2.5', '1', '1', '1', 1, 1, 1)`
	for _, q := range []string{snapshot.PostgresText("days_table"), snapshot.InsightsStageDDL(), staged, `ANALYZE svc_import_insights`,
		snapshot.PostgresText("moved_function"),
		`INSERT INTO svc_import_days VALUES ('org_a', 'acc_a1', current_date - 3), ('org_a', 'acc_a2', current_date - 4)`,
		snapshot.PostgresText("days_analyze")} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			t.Fatalf("%.40s: %v", q, err)
		}
	}
	// The insights merge: a few staged rows are matched by the primary key,
	// not by hashing the whole table (its UPDATE and its NOT EXISTS).
	if plan := explain(ctx, t, tx, snapshot.PostgresText("insights_merge"), today.Format(time.RFC3339)); strings.Contains(plan, "Seq Scan on insights_daily ") {
		t.Errorf("insights_merge scans insights_daily:\n%s", plan)
	} else {
		t.Logf("insights_merge:\n%s", plan)
	}
	for _, name := range []string{"day_versions", "sums_delete", "sums_insert", "day_counts", "import_record"} {
		plan := explain(ctx, t, tx, snapshot.PostgresText(name), "org_a")
		for _, big := range []string{"insights_daily", "insights_daily_sums", "insights_daily_counts",
			"insights_daily_account_counts", "insight_day_versions", "insight_changes"} {
			if strings.Contains(plan, "Seq Scan on "+big+" ") {
				t.Errorf("%s scans %s:\n%s", name, big, plan)
			}
		}
		t.Logf("%s:\n%s", name, plan)
	}
}

// explain returns the plan of q, run with arg for ?0 when it has one.
func explain(ctx context.Context, t *testing.T, tx bun.Tx, q, arg string) string {
	t.Helper()
	q = strings.ReplaceAll(q, "?0", "'"+arg+"'")
	rows, err := tx.QueryContext(ctx, "EXPLAIN (COSTS OFF) "+q)
	if err != nil {
		t.Fatalf("%.60s: %v", q, err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			t.Fatal(err)
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}
