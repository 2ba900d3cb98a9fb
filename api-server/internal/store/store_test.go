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

// TestPlans checks on PostgreSQL that every list query at offset 10000 is
// an index range scan scoped by organization: no sequential scan, no sort.
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
	for name, q := range store.Queries() {
		var args []any
		switch base := strings.TrimSuffix(name, " +epoch"); {
		case base == "meta":
			args = []any{"org_a"}
		case base == "meta+account":
			args = []any{"org_a", "acc_a1"}
		case strings.HasPrefix(name, "insights"):
			args = []any{"org_a", 101, 10000, from, to}
		default: // accounts, campaigns
			args = []any{"org_a", 101, 10000}
		}
		if strings.Contains(name, "?accountId") {
			args = append(args, "acc_a1")
		}
		// The plan for these parameters (a custom plan), then the generic
		// plan that serve runs (plan_cache_mode=force_generic_plan, on a
		// statement prepared on a connection of its own).
		custom := explain(t, b.DB.DB, "", "EXPLAIN (ANALYZE, BUFFERS) "+q, args...)
		lits := make([]string, len(args))
		for i, a := range args {
			if s, ok := a.(string); ok {
				lits[i] = "'" + s + "'"
			} else {
				lits[i] = fmt.Sprint(a)
			}
		}
		generic := explain(t, b.DB.DB, q, "EXPLAIN (ANALYZE, BUFFERS) EXECUTE q("+strings.Join(lits, ", ")+")")
		for kind, p := range map[string]string{"custom": custom, "generic": generic} {
			if strings.Contains(p, "Seq Scan") || strings.Contains(p, "Sort") || !strings.Contains(p, "Index") {
				t.Errorf("%s, %s plan: not an index range scan:\n%s", name, kind, p)
			}
		}
		t.Logf("%s:\n%s\ngeneric:\n%s", name, custom, generic)
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
