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

// withoutMigration hides the migration files whose names start with one
// of names.
type withoutMigration struct {
	fs.FS
	names []string
}

func (f withoutMigration) ReadDir(dir string) ([]fs.DirEntry, error) {
	all, err := fs.ReadDir(f.FS, dir)
	var out []fs.DirEntry
	for _, e := range all {
		hidden := false
		for _, n := range f.names {
			hidden = hidden || strings.HasPrefix(e.Name(), n)
		}
		if !hidden {
			out = append(out, e)
		}
	}
	return out, err
}

// migratedBefore returns a PostgreSQL database migrated without the
// migrations named (as a database of that time), holding the organization
// org with two accounts (org+"1", EUR; org+"2", USD) and the statements'
// writes.
func migratedBefore(t *testing.T, hidden []string, org string, writes ...string) dbtest.Backend {
	t.Helper()
	b := dbtest.Postgres(t)
	ctx := t.Context()
	if _, err := keys.Migrate(ctx, b.DB); err != nil {
		t.Fatal(err)
	}
	old := store.Migrations
	old.Postgres = withoutMigration{old.Postgres, hidden}
	if _, err := database.Migrate(ctx, b.DB, old, time.Minute); err != nil {
		t.Fatal(err)
	}
	acc := strings.Replace(org, "org_", "acc_", 1)
	for _, q := range append([]string{
		`INSERT INTO organizations (id, name, subscription_status, created_at, updated_at) VALUES ('` + org + `', 'm', 'active', now(), now())`,
		`INSERT INTO ad_accounts (id, organization_id, platform_ad_account_id, account_name, currency, timezone, is_active, updated_at)
		 VALUES ('` + acc + `1', '` + org + `', 'p', 'n', 'EUR', 'UTC', true, now()), ('` + acc + `2', '` + org + `', 'p', 'n', 'USD', 'UTC', true, now())`,
	}, writes...) {
		if _, err := b.DB.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q[:30], err)
		}
	}
	return b
}

// TestAggregatesMigration: on a database migrated to the schema before
// migration 20261129110000 (the delta triggers keep the counts and sums),
// with rows written, that migration drops the triggers and leaves every
// count and sum equal to the rows (20261129150000, which adds the days'
// sync times to the counts, is applied after it, as on such a database).
func TestAggregatesMigration(t *testing.T) {
	ctx := t.Context()
	b := migratedBefore(t, []string{"20261129110000", "20261129150000"}, "org_m",
		`INSERT INTO insights_daily (id, organization_id, account_id, platform_ad_account_id, currency, timezone, date,
		   attribution_window, purchase_measurement, spend, ctr, cpc, cpm, impressions, reach, clicks, purchases, updated_at)
		 SELECT 'ins_m' || i, 'org_m', 'acc_m' || (1 + i % 2), 'p', 'EUR', 'UTC', current_date - (i % 9),
		   'w', 'reported_purchase_count', ((i % 7) || '.25')::numeric, 1, 1, 1, i, 1, i % 5, i * 0.5, now()
		 FROM generate_series(1, 500) i`,
		`UPDATE insights_daily SET date = date - 1, spend = 3 WHERE id LIKE 'ins_m1%'`,
		`DELETE FROM insights_daily WHERE id LIKE 'ins_m2%'`)
	var before int
	if err := b.DB.QueryRowContext(ctx, `SELECT count(*) FROM insights_daily_sums WHERE n > 0`).Scan(&before); err != nil || before == 0 {
		t.Fatalf("before the migration: %d sums (%v)", before, err)
	}
	applied, err := store.Migrate(ctx, b.DB)
	if err != nil || len(applied) != 2 {
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
		(SELECT organization_id, account_id, date, n, synced_at FROM insights_daily_account_counts
		 EXCEPT SELECT organization_id, account_id, date, count(*), max(synced_at) FROM insights_daily GROUP BY 1, 2, 3)
		UNION ALL (SELECT organization_id, '', date, n, NULL::timestamptz FROM insights_daily_counts
		 EXCEPT SELECT organization_id, '', date, count(*), NULL::timestamptz FROM insights_daily GROUP BY 1, 2, 3)) AS d`).Scan(&wrong); err != nil || wrong != 0 {
		t.Errorf("after the migration: %d counts differ from the rows (%v)", wrong, err)
	}
}

// TestCountsSyncedAtMigration: on a database at the schema before migration
// 20261129150000, with rows whose sync times vary within a day, that
// migration gives each stored day its rows' newest sync time (NULL where
// none has one), and the refresh function it replaces keeps them so.
func TestCountsSyncedAtMigration(t *testing.T) {
	ctx := t.Context()
	// Sync times differ by row; one day in nine has none at all.
	b := migratedBefore(t, []string{"20261129150000"}, "org_s",
		`INSERT INTO insights_daily (id, organization_id, account_id, platform_ad_account_id, currency, timezone, date,
		   attribution_window, purchase_measurement, spend, ctr, cpc, cpm, impressions, reach, clicks, synced_at, updated_at)
		 SELECT 'ins_s' || i, 'org_s', 'acc_s' || (1 + i % 2), 'p', 'EUR', 'UTC', current_date - (i % 9),
		   'w', 'unavailable', 1, 1, 1, 1, i, 1, 1,
		   CASE WHEN i % 9 <> 4 THEN timestamptz '2026-11-01 00:00Z' + i * interval '1 minute' END, now()
		 FROM generate_series(1, 300) i`,
		`SELECT insights_daily_aggregates_refresh()`)
	const wrongDays = `SELECT count(*) FROM (
		(SELECT organization_id, account_id, date, n, synced_at FROM insights_daily_account_counts
		 EXCEPT SELECT organization_id, account_id, date, count(*), max(synced_at) FROM insights_daily GROUP BY 1, 2, 3)
		UNION ALL
		(SELECT organization_id, account_id, date, count(*), max(synced_at) FROM insights_daily GROUP BY 1, 2, 3
		 EXCEPT SELECT organization_id, account_id, date, n, synced_at FROM insights_daily_account_counts)) AS d`
	applied, err := store.Migrate(ctx, b.DB)
	if err != nil || len(applied) != 1 {
		t.Fatalf("migrate: %v %v", applied, err)
	}
	for _, step := range []string{"the migration", "a refresh"} {
		if step == "a refresh" {
			refreshAggregates(t, b)
		}
		var wrong, withTime int
		if err := b.DB.QueryRowContext(ctx, wrongDays).Scan(&wrong); err != nil || wrong != 0 {
			t.Errorf("after %s: %d days' counts or sync times differ from the rows (%v)", step, wrong, err)
		}
		if err := b.DB.QueryRowContext(ctx, `SELECT count(*) FROM insights_daily_account_counts WHERE synced_at IS NOT NULL`).Scan(&withTime); err != nil || withTime != 16 {
			t.Errorf("after %s: %d days with a sync time, want 16 (%v)", step, withTime, err)
		}
	}
}
