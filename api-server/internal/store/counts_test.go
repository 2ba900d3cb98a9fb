package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// TestDayCountsFollowEveryWrite: on PostgreSQL, the per-day counts that
// position deep insights pages equal a GROUP BY of insights_daily after
// every kind of write by a writer other than the import, once it calls
// insights_daily_aggregates_refresh() (migration 20261129110000; the
// import keeps them itself, snapshot's TestImportChangeLogProperty):
// multi-row INSERT, INSERT … ON CONFLICT DO UPDATE, UPDATE moving rows
// between days and accounts, DELETE, cascaded DELETE, COPY under
// session_replication_role = replica (the bench generator's), concurrent
// writers, TRUNCATE. So do the exact per-day sums of the summary
// (insights_daily_sums). No trigger is left on insights_daily.
func TestDayCountsFollowEveryWrite(t *testing.T) {
	b := dbtest.Postgres(t)
	ctx := t.Context()
	today := time.Now().UTC()
	testenv.Seed(t, b.DB, today)
	db := b.DB.DB
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", strings.Fields(q)[0], err)
		}
	}
	check := func(step string) {
		t.Helper()
		refreshAggregates(t, b)
		for _, c := range []struct{ table, keys string }{
			{"insights_daily_counts", "organization_id, date"},
			{"insights_daily_account_counts", "organization_id, account_id, date"},
		} {
			var wrong, total int64
			err := db.QueryRowContext(ctx, fmt.Sprintf(`SELECT
				(SELECT count(*) FROM (
					(SELECT %[2]s, count(*) AS n FROM insights_daily GROUP BY %[2]s
					 EXCEPT SELECT %[2]s, n FROM %[1]s WHERE n <> 0)
					UNION ALL
					(SELECT %[2]s, n FROM %[1]s WHERE n <> 0
					 EXCEPT SELECT %[2]s, count(*) FROM insights_daily GROUP BY %[2]s)) AS d),
				(SELECT count(*) FROM insights_daily)`, c.table, c.keys)).Scan(&wrong, &total)
			if err != nil {
				t.Fatal(err)
			}
			if wrong != 0 {
				t.Errorf("after %s: %s differs from the rows (%d groups wrong, %d rows)", step, c.table, wrong, total)
			}
		}
		// The summary's per-day sums (issue 34) follow every write too.
		if n, wrong := sumsDiff(t, b); wrong != 0 {
			t.Errorf("after %s: insights_daily_sums differs from the rows (%d of %d keys wrong)", step, wrong, n)
		}
	}
	insert := func(prefix, org, acc string, n, days int, onConflict string) {
		t.Helper()
		exec(`INSERT INTO insights_daily (id, organization_id, account_id, platform_ad_account_id, currency, timezone,
			date, attribution_window, purchase_measurement, spend, ctr, cpc, cpm, impressions, reach, clicks, updated_at)
			SELECT $1 || g, $2, $3, 'p', 'EUR', 'UTC', current_date - (g % $5), 'w', 'unavailable', 1, 1, 1, 1, 1, 1, 1, now()
			FROM generate_series(1, $4::int) AS g `+onConflict, prefix, org, acc, n, days)
	}
	check("the fixture's import")

	insert("ins_c_", "org_a", "acc_a1", 300, 7, "")
	insert("ins_d_", "org_a", "acc_a2", 200, 5, "")
	insert("ins_e_", "org_b", "acc_b1", 100, 3, "")
	check("INSERT")
	insert("ins_c_", "org_a", "acc_a1", 400, 9, "ON CONFLICT (id) DO UPDATE SET date = excluded.date - 1")
	check("INSERT … ON CONFLICT DO UPDATE")
	exec(`UPDATE insights_daily SET date = date - 3 WHERE id LIKE 'ins_c_1%'`)
	exec(`UPDATE insights_daily SET account_id = 'acc_a1' WHERE id LIKE 'ins_d_2%'`)
	exec(`UPDATE insights_daily SET spend = spend + 1 WHERE organization_id = 'org_a'`)
	check("UPDATE")
	exec(`DELETE FROM insights_daily WHERE id LIKE 'ins_c_3%' OR id LIKE 'ins_e_%'`)
	check("DELETE")
	exec(`DELETE FROM ad_accounts WHERE id = 'acc_a2'`)
	check("a cascaded DELETE (an account removed)")

	// COPY with triggers of the origin disabled, as the bench generator loads.
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = conn.Raw(func(dc any) error {
		c := dc.(*stdlib.Conn).Conn()
		if _, err := c.Exec(ctx, "SET session_replication_role = replica"); err != nil {
			return err
		}
		defer c.Exec(context.WithoutCancel(ctx), "RESET session_replication_role")
		var rows [][]any
		for i := range 250 {
			rows = append(rows, []any{fmt.Sprintf("ins_copy_%d", i), "org_b", "acc_b1", "p", "EUR", "UTC",
				today.AddDate(0, 0, -(i % 11)), "w", "unavailable", "1", "1", "1", "1", 1, 1, 1, today})
		}
		_, err := c.CopyFrom(ctx, pgx.Identifier{"insights_daily"}, []string{"id", "organization_id", "account_id",
			"platform_ad_account_id", "currency", "timezone", "date", "attribution_window", "purchase_measurement",
			"spend", "ctr", "cpc", "cpm", "impressions", "reach", "clicks", "updated_at"}, pgx.CopyFromRows(rows))
		return err
	})
	conn.Close()
	if err != nil {
		t.Fatal(err)
	}
	check("COPY under session_replication_role = replica")

	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 10 {
				if _, err := db.ExecContext(ctx, `INSERT INTO insights_daily (id, organization_id, account_id,
					platform_ad_account_id, currency, timezone, date, attribution_window, purchase_measurement,
					spend, ctr, cpc, cpm, impressions, reach, clicks, updated_at)
					SELECT $1 || g, 'org_a', 'acc_a1', 'p', 'EUR', 'UTC', current_date - (g % 4), 'w', 'unavailable',
					1, 1, 1, 1, 1, 1, 1, now() FROM generate_series(1, 20) AS g`, fmt.Sprintf("ins_w%d_%d_", w, i)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	check("concurrent INSERTs")

	exec(`TRUNCATE insights_daily`)
	check("TRUNCATE")
	var left sql.NullInt64
	if err := db.QueryRowContext(ctx, `SELECT sum(n) FROM insights_daily_counts`).Scan(&left); err != nil || left.Valid {
		t.Errorf("after TRUNCATE: counts %v left, %v", left, err)
	}
	var triggers int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_trigger WHERE tgrelid = 'insights_daily'::regclass AND NOT tgisinternal`).Scan(&triggers); err != nil || triggers != 0 {
		t.Errorf("insights_daily has %d triggers (%v), want none: the import keeps the counts and sums", triggers, err)
	}
}
