package store_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
)

// TestVersionsSpan: on both databases, the days that the versions of an
// insights page say it spans (from the day counts, without the page's
// query) are exactly the days of the page's rows (limit+1 read), and the
// rows before them are the page's offset less the rows of its first day
// that precede it; past the end, no day. So a tag covers exactly the days
// its page shows.
func TestVersionsSpan(t *testing.T) {
	for _, b := range []dbtest.Backend{dbtest.Postgres(t), dbtest.SQLite(t)} {
		t.Run(b.Name, func(t *testing.T) {
			ctx := t.Context()
			today := time.Now().UTC()
			testenv.Seed(t, b.DB, today)
			// Uneven days: day d has 5+(d*7)%23 rows, for two accounts.
			n := 0
			for d := range 20 {
				for k := range 5 + (d*7)%23 {
					acc := []string{"acc_a1", "acc_a2"}[k%2]
					if _, err := b.DB.ExecContext(ctx, `INSERT INTO insights_daily (id, organization_id, account_id,
						platform_ad_account_id, currency, timezone, date, attribution_window, purchase_measurement,
						spend, ctr, cpc, cpm, impressions, reach, clicks, updated_at)
						VALUES (?, 'org_a', ?, 'p', 'EUR', 'UTC', ?, 'w', 'unavailable', '1.50', '1', '1', '1', 1, 1, 1, ?)`,
						fmt.Sprintf("ins_v_%02d_%02d", d, k), acc, today.AddDate(0, 0, -d).Format(time.DateOnly), today); err != nil {
						t.Fatal(err)
					}
					n++
				}
			}
			if b.Name == "postgres" { // a writer other than the import keeps the day counts so
				if _, err := b.DB.ExecContext(ctx, `SELECT insights_daily_aggregates_refresh()`); err != nil {
					t.Fatal(err)
				}
			}
			st, err := store.New(ctx, b.Handle)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			from, to := today.AddDate(0, 0, -89).Format(time.DateOnly), today.Format(time.DateOnly)
			for _, acc := range []string{"", "acc_a2"} {
				for off := 0; off <= n+10; off += 13 {
					p := store.ListParams{Limit: 21, Offset: off, AccountID: acc, From: from, To: to}
					_, material, err := st.Versions(ctx, "org_a", store.Insights, p, nil)
					if err != nil {
						t.Fatal(err)
					}
					_, page, err := st.InsightsPage(ctx, "org_a", p, nil)
					if err != nil {
						t.Fatal(err)
					}
					rows := page.Rows()
					f := strings.Split(material, ":")
					if len(rows) == 0 {
						if len(f) > 1 {
							if _, err := time.Parse(time.DateOnly, f[1]); err == nil {
								t.Errorf("account %q offset %d: no rows, material %q names days", acc, off, material)
							}
						}
						page.Release()
						continue
					}
					lo, hi := rows[len(rows)-1].Date, rows[0].Date
					var before int // the rows of the days newer than the page's first
					if err := b.DB.QueryRowContext(ctx, `SELECT count(*) FROM insights_daily WHERE organization_id = 'org_a'
						AND (? = '' OR account_id = ?) AND date > ? AND date <= ?`, acc, acc, hi, to).Scan(&before); err != nil {
						t.Fatal(err)
					}
					if len(f) < 5 || f[1] != lo || f[2] != hi || f[3] != strconv.Itoa(before) {
						t.Errorf("account %q offset %d: page spans %s..%s after %d rows, versions say %q", acc, off, lo, hi, before, material)
					}
					page.Release()
				}
			}
		})
	}
}
