package store_test

import (
	"context"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/keys-admin/database"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
)

// sumsOfRows is insights_daily_sums computed from the rows of
// insights_daily, written out here (not the migration's function).
const sumsOfRows = `SELECT organization_id, account_id, coalesce(campaign_id, '') AS campaign_key, date, currency,
	count(*) AS n, sum(spend) AS spend, sum(impressions)::bigint AS impressions, sum(clicks)::bigint AS clicks,
	count(*) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchases IS NOT NULL) AS purchase_rows,
	sum(purchases::numeric) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchases IS NOT NULL) AS purchases,
	count(*) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchase_value IS NOT NULL) AS purchase_value_rows,
	sum(purchase_value::numeric) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchase_value IS NOT NULL) AS purchase_value,
	sum(spend) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchase_value IS NOT NULL) AS value_spend
	FROM insights_daily GROUP BY 1, 2, 3, 4, 5`

// refreshAggregates computes the per-day counts and sums again after a
// test wrote insights_daily directly (PostgreSQL; SQLite keeps none), as
// every writer other than the import must.
func refreshAggregates(t *testing.T, b dbtest.Backend) {
	t.Helper()
	if b.Name != "postgres" {
		return
	}
	if _, err := b.DB.ExecContext(t.Context(), `SELECT insights_daily_aggregates_refresh()`); err != nil {
		t.Fatal(err)
	}
}

// withoutMigration hides the migration files whose names start with name.
type withoutMigration struct {
	fs.FS
	name string
}

func (f withoutMigration) ReadDir(dir string) ([]fs.DirEntry, error) {
	all, err := fs.ReadDir(f.FS, dir)
	var out []fs.DirEntry
	for _, e := range all {
		if !strings.HasPrefix(e.Name(), f.name) {
			out = append(out, e)
		}
	}
	return out, err
}

// TestAggregatesMigration: on a database migrated to the schema before
// migration 20261129110000 (the delta triggers keep the counts and sums),
// with rows written, that migration drops the triggers and leaves every
// count and sum equal to the rows.
func TestAggregatesMigration(t *testing.T) {
	b := dbtest.Postgres(t)
	ctx := t.Context()
	if _, err := keys.Migrate(ctx, b.DB); err != nil {
		t.Fatal(err)
	}
	old := store.Migrations
	old.Postgres = withoutMigration{old.Postgres, "20261129110000"}
	if _, err := database.Migrate(ctx, b.DB, old, time.Minute); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO organizations (id, name, subscription_status, created_at, updated_at) VALUES ('org_m', 'm', 'active', now(), now())`,
		`INSERT INTO ad_accounts (id, organization_id, platform_ad_account_id, account_name, currency, timezone, is_active, updated_at)
		 VALUES ('acc_m1', 'org_m', 'p', 'n', 'EUR', 'UTC', true, now()), ('acc_m2', 'org_m', 'p', 'n', 'USD', 'UTC', true, now())`,
		`INSERT INTO insights_daily (id, organization_id, account_id, platform_ad_account_id, currency, timezone, date,
		   attribution_window, purchase_measurement, spend, ctr, cpc, cpm, impressions, reach, clicks, purchases, updated_at)
		 SELECT 'ins_m' || i, 'org_m', 'acc_m' || (1 + i % 2), 'p', 'EUR', 'UTC', current_date - (i % 9),
		   'w', 'reported_purchase_count', ((i % 7) || '.25')::numeric, 1, 1, 1, i, 1, i % 5, i * 0.5, now()
		 FROM generate_series(1, 500) i`,
		`UPDATE insights_daily SET date = date - 1, spend = 3 WHERE id LIKE 'ins_m1%'`,
		`DELETE FROM insights_daily WHERE id LIKE 'ins_m2%'`,
	} {
		if _, err := b.DB.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q[:30], err)
		}
	}
	var before int
	if err := b.DB.QueryRowContext(ctx, `SELECT count(*) FROM insights_daily_sums WHERE n > 0`).Scan(&before); err != nil || before == 0 {
		t.Fatalf("before the migration: %d sums (%v)", before, err)
	}
	applied, err := store.Migrate(ctx, b.DB)
	if err != nil || len(applied) != 1 {
		t.Fatalf("migrate: %v %v", applied, err)
	}
	var triggers int
	if err := b.DB.QueryRowContext(ctx, `SELECT count(*) FROM pg_trigger WHERE tgrelid = 'insights_daily'::regclass AND NOT tgisinternal`).Scan(&triggers); err != nil || triggers != 0 {
		t.Errorf("after the migration: %d triggers (%v)", triggers, err)
	}
	if n, wrong := sumsDiff(t, b); n != before || wrong != 0 {
		t.Errorf("after the migration: %d sums (%d before), %d differ from the rows", n, before, wrong)
	}
	var wrong int
	if err := b.DB.QueryRowContext(context.Background(), `SELECT count(*) FROM (
		(SELECT organization_id, account_id, date, n FROM insights_daily_account_counts
		 EXCEPT SELECT organization_id, account_id, date, count(*) FROM insights_daily GROUP BY 1, 2, 3)
		UNION ALL (SELECT organization_id, '', date, n FROM insights_daily_counts
		 EXCEPT SELECT organization_id, '', date, count(*) FROM insights_daily GROUP BY 1, 2, 3)) AS d`).Scan(&wrong); err != nil || wrong != 0 {
		t.Errorf("after the migration: %d counts differ from the rows (%v)", wrong, err)
	}
}
