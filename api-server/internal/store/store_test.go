package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
)

// TestPlans checks on PostgreSQL the plans of every statement the store
// runs there (queries/postgres), custom and generic: each page statement
// at the deepest offset it runs at (10000; 63 for the plain insights
// statements, which serve offsets below seekFrom), and each meta
// statement, is an index range scan scoped by organization (no sequential
// scan, no sort); the replica check reads no table.
func TestPlans(t *testing.T) {
	b := dbtest.Postgres(t)
	ctx := t.Context()
	testenv.Seed(t, b.DB, time.Now().UTC())
	// 2 organizations x 30,000 rows of each kind, and 400 more organizations
	// with an account and a row a day for 90 days, so that the day count
	// tables are not the few rows that a sequential scan reads fastest.
	for _, q := range []string{
		`INSERT INTO organizations (id, name, subscription_status, created_at, updated_at)
		 SELECT 'org_m' || o, 'm', 'active', now(), now() FROM generate_series(1, 400) o`,
		`INSERT INTO ad_accounts (id, organization_id, platform_ad_account_id, account_name, currency, timezone, is_active, updated_at)
		 SELECT 'acc_m' || o, 'org_m' || o, 'p', 'n', 'EUR', 'UTC', true, now() FROM generate_series(1, 400) o`,
		`INSERT INTO insights_daily (id, organization_id, account_id, platform_ad_account_id, currency, timezone, date,
		   attribution_window, purchase_measurement, spend, ctr, cpc, cpm, impressions, reach, clicks, updated_at)
		 SELECT 'ins_m' || o || '_' || d, 'org_m' || o, 'acc_m' || o, 'p', 'EUR', 'UTC', current_date - d,
		   'w', 'unavailable', 1.5, 1, 1, 1, 1, 1, 1, now()
		 FROM generate_series(1, 400) o, generate_series(0, 89) d`,
		`INSERT INTO ad_accounts (id, organization_id, platform_ad_account_id, account_name, currency, timezone, is_active, updated_at)
		 SELECT 'acc_g' || o || '_' || i, 'org_' || o, 'p', 'n', 'EUR', 'UTC', true, now()
		 FROM generate_series(1, 30000) i, (VALUES ('a'), ('b')) AS v(o)`,
		`INSERT INTO campaigns (id, organization_id, account_id, platform_ad_account_id, currency, timezone, name, objective, status, updated_at)
		 SELECT 'cmp_g' || o || '_' || i, 'org_' || o, 'acc_' || o || '1', 'p', 'EUR', 'UTC', 'n', 'o', 's', now()
		 FROM generate_series(1, 30000) i, (VALUES ('a'), ('b')) AS v(o)`,
		`INSERT INTO insights_daily (id, organization_id, account_id, platform_ad_account_id, currency, timezone, date,
		   attribution_window, purchase_measurement, spend, ctr, cpc, cpm, impressions, reach, clicks, raw_payload, updated_at)
		 SELECT 'ins_g' || o || '_' || i, 'org_' || o, 'acc_' || o || '1', 'p', 'EUR', 'UTC', current_date - (i % 90),
		   'w', 'unavailable', 1.5, 1, 1, 1, 1, 1, 1, '{"big": "payload"}', now()
		 FROM generate_series(1, 30000) i, (VALUES ('a'), ('b')) AS v(o)`,
		`SELECT insights_daily_aggregates_refresh()`, // a writer other than the import
		// The change log (issue 42): an entry per row of org_a and org_b, and
		// a second one for a tenth of them, in two transactions.
		`INSERT INTO insight_changes (organization_id, insight_id, account_id, date, kind)
		 SELECT organization_id, id, account_id, date, 'upsert' FROM insights_daily WHERE organization_id IN ('org_a', 'org_b')`,
		`INSERT INTO insight_changes (organization_id, insight_id, account_id, date, kind)
		 SELECT organization_id, id, account_id, date, 'upsert' FROM insights_daily
		 WHERE organization_id IN ('org_a', 'org_b') AND hashtext(id) % 10 = 0`,
		`VACUUM ANALYZE insight_changes`,
		`VACUUM ANALYZE ad_accounts`, `VACUUM ANALYZE campaigns`, `VACUUM ANALYZE insights_daily`,
		// The day counts, as autovacuum would; without statistics the plan
		// depends on whether autovacuum has run yet.
		`VACUUM ANALYZE insights_daily_counts`, `VACUUM ANALYZE insights_daily_account_counts`,
	} {
		if _, err := b.DB.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q[:40], err)
		}
	}
	from := time.Now().UTC().AddDate(0, 0, -89).Format(time.DateOnly)
	to := time.Now().UTC().Format(time.DateOnly)
	// The arguments of each statement, by name: the deepest offset it runs
	// at (10000; the plain insights statements run below SeekFrom).
	page, window := []any{"org_a", 101, 10000}, []any{"org_a", 101, 10000, from, to}
	shallow := []any{"org_a", 101, store.SeekFrom - 1, from, to}
	planArgs := map[string][]any{
		"meta": {"org_a"}, "meta_by_account": {"org_a", "acc_a1"},
		"accounts": page, "accounts_by_account": append(page, "acc_a1"),
		"campaigns": page, "campaigns_by_account": append(page, "acc_a1"),
		"insights": shallow, "insights_by_account": append(shallow, "acc_a1"),
		"insights_seek": window, "insights_by_account_seek": append(window, "acc_a1"),
		"replica_lag":   nil, // reads no table: its plan is a Result
		"primary_check": nil,
		// The summary's groups: every row of the window of one level is
		// read (an index range scan), grouped and sorted (the groups, not
		// the rows, are sorted: GROUP BY and the API's order of groups).
		"summary":            {"org_a", 101, 0, from, to, "campaign", "campaign"},
		"summary_by_account": {"org_a", 101, 0, from, to, "campaign", "week", "acc_a1"},
		// The tag material (versions.go): day counts and versions, or the
		// resource's version, by index.
		"versions_accounts": {"org_a", ""}, "versions_campaigns": {"org_a", "acc_a1"},
		"versions_insights": window, "versions_insights_by_account": append(window, "acc_a1"),
		"versions_summary": {"org_a", from, to, "acc_a1"},
		// The last import of an organization (issue 46).
		"insight_freshness": {"org_a"},
		// The names of a page of groups: index lookups by id.
		"summary_names": {"org_a", "{acc_a1,acc_g_a_2}", "{cmp_ga_1,cmp_ga_2,cmp_ga_3}"},
		// The changes feed (issue 42): a window from the first txid on, and
		// a first sync's first page.
		"changes":       {"org_a", "1", "", "1", 0, 101},
		"changes_first": {"org_a", "", "9999-12-31", "", 101},
		"token_secret":  {}, // read once at start: one row of a table of one row
	}
	n := 0
	for _, st := range store.Statements() {
		if st.PG == "" {
			continue
		}
		n++
		args, ok := planArgs[st.Name]
		if !ok {
			t.Errorf("statement %s has no plan-check arguments: add them to planArgs", st.Name)
			continue
		}
		// The plan for these arguments (a custom plan), then the generic
		// plan that serve runs (plan_cache_mode=force_generic_plan, on a
		// statement prepared on a connection of its own).
		custom := explain(t, b.DB.DB, "", "EXPLAIN (ANALYZE, BUFFERS) "+st.PG, args...)
		lits := make([]string, len(args))
		for i, a := range args {
			if s, ok := a.(string); ok {
				lits[i] = "'" + s + "'"
			} else {
				lits[i] = fmt.Sprint(a)
			}
		}
		execute := "EXPLAIN (ANALYZE, BUFFERS) EXECUTE q"
		if len(lits) > 0 {
			execute += "(" + strings.Join(lits, ", ") + ")"
		}
		generic := explain(t, b.DB.DB, st.PG, execute)
		for kind, p := range map[string]string{"custom": custom, "generic": generic} {
			switch {
			case args == nil && (strings.Contains(p, "Scan") || !strings.Contains(p, "Result")):
				t.Errorf("%s, %s plan: reads a table:\n%s", st.Name, kind, p)
			case strings.HasPrefix(st.Name, "summary") && (strings.Contains(p, "Seq Scan") || !strings.Contains(p, "Index")):
				t.Errorf("%s, %s plan: not an index range scan:\n%s", st.Name, kind, p)
			case strings.HasPrefix(st.Name, "summary"), st.Name == "token_secret":
			case args != nil && (strings.Contains(p, "Seq Scan") || strings.Contains(p, "Sort") || !strings.Contains(p, "Index")):
				t.Errorf("%s, %s plan: not an index range scan:\n%s", st.Name, kind, p)
			}
		}
		t.Logf("%s:\n%s\ngeneric:\n%s", st.Name, custom, generic)
	}
	if n < len(planArgs) {
		t.Errorf("%d PostgreSQL statements checked, want %d", n, len(planArgs))
	}
}

// explain runs the EXPLAIN statement q with args and returns its text. With
// prepare, on a connection of its own with plan_cache_mode
// force_generic_plan, prepare is first prepared as statement q, and the plan
// must be the generic one.
func explain(t *testing.T, db *sql.DB, prepare, q string, args ...any) string {
	t.Helper()
	ctx := t.Context()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if prepare != "" {
		for _, s := range []string{"SET plan_cache_mode = force_generic_plan", "PREPARE q AS " + prepare} {
			if _, err := conn.ExecContext(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "DEALLOCATE q; RESET plan_cache_mode") //nolint:errcheck
	}
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var plan strings.Builder
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(line + "\n")
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if prepare != "" {
		var generic int
		if err := conn.QueryRowContext(ctx, "SELECT generic_plans FROM pg_prepared_statements WHERE name = 'q'").Scan(&generic); err != nil || generic == 0 {
			t.Fatalf("the plan of %q is not generic (%d generic plans, %v)", prepare, generic, err)
		}
	}
	return plan.String()
}
