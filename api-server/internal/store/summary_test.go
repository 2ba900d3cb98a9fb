package store_test

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
)

// TestSummaryDialectsAgree: on the same rows, PostgreSQL's summary
// statement and SQLite's rows summed in Go give the same groups, for every
// level and grouping, with and without accountId, paged by every offset;
// the sums are exact (decimals of several scales, yen without decimals,
// float purchase figures as %.15g) and purchase figures cover only the rows
// with evidence.
func TestSummaryDialectsAgree(t *testing.T) {
	today := time.Now().UTC()
	results := map[string][]store.SummaryGroup{}
	for _, b := range []dbtest.Backend{dbtest.Postgres(t), dbtest.SQLite(t)} {
		ctx := t.Context()
		testenv.Seed(t, b.DB, today)
		// 200 more rows of org_a at both levels, of scales 0 to 3, some
		// without purchase evidence, purchases with fractions.
		for i := range 200 {
			acc, cur := []string{"acc_a1", "acc_a2"}[i%2], []string{"EUR", "USD"}[i%2]
			var cmp any
			if i%3 != 0 {
				cmp = []string{"cmp_a1", "cmp_a2"}[i%2]
			}
			m := []string{"reported_purchase_value", "reported_purchase_count", "unavailable"}[i%3]
			spend := []string{"1.5", "0.125", "7", "12.30"}[i%4]
			var purchases, value any
			if m != "unavailable" {
				purchases, value = float64(i%5)+0.1, float64(i)*1.01
			}
			if _, err := b.DB.ExecContext(ctx, `INSERT INTO insights_daily (id, organization_id, account_id, campaign_id,
				platform_ad_account_id, currency, timezone, date, attribution_window, purchase_measurement,
				spend, ctr, cpc, cpm, impressions, reach, clicks, purchases, purchase_value, updated_at)
				VALUES (?, 'org_a', ?, ?, 'p', ?, 'UTC', ?, 'w', ?, ?, '1', '1', '1', ?, 1, ?, ?, ?, ?)`,
				fmt.Sprintf("ins_s_%03d", i), acc, cmp, cur, today.AddDate(0, 0, -(i%40)).Format(time.DateOnly), m, spend,
				1000+i, i%17, purchases, value, today); err != nil {
				t.Fatal(err)
			}
		}
		// Rows changed and deleted after the import, then the per-day sums
		// (insights_daily_sums) computed again as a writer other than the
		// import does: exact, with the decimal places of the rows that remain.
		for _, q := range []string{
			`UPDATE insights_daily SET spend = '2' WHERE id IN ('ins_s_001', 'ins_s_005', 'ins_s_041')`,
			`UPDATE insights_daily SET purchase_measurement = 'unavailable' WHERE id IN ('ins_s_004', 'ins_s_010')`,
			`DELETE FROM insights_daily WHERE id IN ('ins_s_002', 'ins_s_013', 'ins_s_081')`,
		} {
			if _, err := b.DB.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		if b.Name == "postgres" {
			refreshAggregates(t, b) // a writer other than the import
			sumsExact(t, b)
		}
		st, err := store.New(ctx, b.Handle)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		for _, level := range []string{"account", "campaign"} {
			for _, groupBy := range []string{"total", "account", "campaign", "day", "week", "month", "account,day", "campaign,day"} {
				for _, account := range []string{"", "acc_a2"} {
					p := store.SummaryParams{Limit: 1000, AccountID: account, Level: level, GroupBy: groupBy,
						From: today.AddDate(0, 0, -89).Format(time.DateOnly), To: today.Format(time.DateOnly)}
					m, all, err := st.InsightSummary(ctx, "org_a", p, nil)
					if err != nil || !m.AccountFound {
						t.Fatalf("%s: %+v: %v %v", b.Name, p, m, err)
					}
					key := fmt.Sprintf("%s/%s/%s", level, groupBy, account)
					results[b.Name+" "+key] = all
					// Every page of 3 groups is the slice of all.
					for off := 0; off <= len(all); off++ {
						p.Limit, p.Offset = 3, off
						_, page, err := st.InsightSummary(ctx, "org_a", p, nil)
						if err != nil {
							t.Fatal(err)
						}
						if want := all[off:min(off+3, len(all))]; !reflect.DeepEqual(page, want) {
							t.Fatalf("%s %s offset %d: %+v, want %+v", b.Name, key, off, page, want)
						}
					}
				}
			}
		}
		m, groups, err := st.InsightSummary(ctx, "org_a", store.SummaryParams{Limit: 10, AccountID: "acc_b1", Level: "account",
			GroupBy: "total", From: today.Format(time.DateOnly), To: today.Format(time.DateOnly)}, nil)
		if err != nil || m.AccountFound || len(groups) != 0 {
			t.Fatalf("%s: another organization's account: %+v %v %v", b.Name, m, groups, err)
		}
	}
	n := 0
	for k, pg := range results {
		if len(k) < 9 || k[:9] != "postgres " {
			continue
		}
		lite, ok := results["sqlite "+k[9:]]
		if !ok {
			t.Fatalf("no SQLite result for %s", k)
		}
		if !reflect.DeepEqual(pg, lite) {
			t.Errorf("%s: PostgreSQL %+v\nSQLite %+v", k[9:], pg, lite)
		}
		if len(pg) > 0 {
			n++
		}
	}
	if n < 20 {
		t.Errorf("only %d non-empty results compared", n)
	}
}

// sumsExact: every row of insights_daily_sums is the sum, computed again
// from insights_daily, of the rows of its key, figure for figure as text
// (so that a sum written with too many decimal places is a difference),
// and there are sums.
func sumsExact(t *testing.T, b dbtest.Backend) {
	t.Helper()
	if n, wrong := sumsDiff(t, b); n == 0 || wrong != 0 {
		t.Fatalf("insights_daily_sums: %d rows, %d differ from the sums of insights_daily", n, wrong)
	}
}

// sumsDiff returns the number of rows of insights_daily_sums (those with
// rows: a key whose rows are all gone keeps n = 0) and the number of rows
// that differ between it and the sums of insights_daily computed again
// (either way).
func sumsDiff(t *testing.T, b dbtest.Backend) (n, wrong int) {
	t.Helper()
	ctx := t.Context()
	sums := sumsOfRows
	const cols = `organization_id, account_id, campaign_key, date, currency, n, spend::text, impressions, clicks,
		purchase_rows, purchases::text, purchase_value_rows, purchase_value::text, value_spend::text`
	q := `SELECT (SELECT count(*) FROM insights_daily_sums WHERE n > 0), (SELECT count(*) FROM (
		(SELECT ` + cols + ` FROM insights_daily_sums WHERE n > 0 EXCEPT SELECT ` + cols + ` FROM (` + sums + `) AS a)
		UNION ALL
		(SELECT ` + cols + ` FROM (` + sums + `) AS a EXCEPT SELECT ` + cols + ` FROM insights_daily_sums WHERE n > 0)) AS d)`
	if err := b.DB.QueryRowContext(ctx, q).Scan(&n, &wrong); err != nil {
		t.Fatal(err)
	}
	return n, wrong
}
