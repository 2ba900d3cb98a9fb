package store_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
)

// TestPagesMatchPlainQueries: on both databases, the one-round-trip page
// methods (the seek on PostgreSQL from the 64th row on) return exactly the
// rows and meta of the plain LIMIT/OFFSET queries, at every offset around
// the seek threshold, on dates with many rows (ties broken by id).
func TestPagesMatchPlainQueries(t *testing.T) {
	for _, b := range []dbtest.Backend{dbtest.Postgres(t), dbtest.SQLite(t)} {
		t.Run(b.Name, func(t *testing.T) {
			ctx := t.Context()
			today := time.Now().UTC()
			testenv.Seed(t, b.DB, today)
			// 600 more rows of org_a over 12 days (50 a day), ids not in date order.
			for i := range 600 {
				acc := []string{"acc_a1", "acc_a2"}[i%2]
				if _, err := b.DB.ExecContext(ctx, `INSERT INTO insights_daily (id, organization_id, account_id,
					platform_ad_account_id, currency, timezone, date, attribution_window, purchase_measurement,
					spend, ctr, cpc, cpm, impressions, reach, clicks, updated_at)
					VALUES (?, 'org_a', ?, 'p', 'EUR', 'UTC', ?, 'w', 'unavailable', '1.50', '1', '1', '1', 1, 1, 1, ?)`,
					fmt.Sprintf("ins_p_%03d", (i*7919)%600), acc, today.AddDate(0, 0, -(i%12)).Format(time.DateOnly), today); err != nil {
					t.Fatal(err)
				}
			}
			st, err := store.New(ctx, b.Handle)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			from, to := today.AddDate(0, 0, -89).Format(time.DateOnly), today.Format(time.DateOnly)
			check := func(step string) {
				for _, acc := range []string{"", "acc_a1", "acc_nope"} {
					for _, off := range []int{0, 1, 50, 63, 64, 65, 100, 149, 150, 299, 300, 301, 450, 599, 600, 650, 10000} {
						p := store.ListParams{Limit: 51, Offset: off, AccountID: acc, From: from, To: to}
						m, got, err := st.InsightsPage(ctx, "org_a", p, nil)
						if err != nil {
							t.Fatal(err)
						}
						wantM, err := st.Meta(ctx, "org_a", acc)
						if err != nil {
							t.Fatal(err)
						}
						want, err := st.Insights(ctx, "org_a", p)
						if err != nil {
							t.Fatal(err)
						}
						if m != wantM {
							t.Errorf("account %q offset %d: meta %+v, want %+v", acc, off, m, wantM)
						}
						if !wantM.AccountFound {
							got.Release()
							want.Release()
							continue
						}
						g, w := got.Rows(), want.Rows()
						if len(g) != len(w) || (len(w) > 0 && !reflect.DeepEqual(g, w)) {
							t.Errorf("%s: account %q offset %d: %d rows, want %d (first %v)", step, acc, off, len(g), len(w), g[:min(1, len(g))])
						}
						got.Release()
						want.Release()
					}
				}
			}
			check("inserted")
			// Rows moved between days and accounts, and removed: the day
			// counts that position PostgreSQL's deep pages follow.
			for _, q := range []string{
				`UPDATE insights_daily SET date = ? WHERE id LIKE 'ins_p_1%'`,
				`UPDATE insights_daily SET account_id = 'acc_a1' WHERE id LIKE 'ins_p_2%'`,
				`DELETE FROM insights_daily WHERE id LIKE 'ins_p_3%'`,
			} {
				var args []any
				if strings.Contains(q, "?") {
					args = append(args, today.AddDate(0, 0, -20).Format(time.DateOnly))
				}
				if _, err := b.DB.ExecContext(ctx, q, args...); err != nil {
					t.Fatal(err)
				}
			}
			check("updated and deleted")
			for _, acc := range []string{"", "acc_a1"} {
				p := store.ListParams{Limit: 3, Offset: 1, AccountID: acc}
				m, got, err := st.AccountsPage(ctx, "org_a", p, nil)
				want, err2 := st.Accounts(ctx, "org_a", p)
				if err != nil || err2 != nil || !m.AccountFound || !reflect.DeepEqual(got.Rows(), want.Rows()) && want.Len() > 0 {
					t.Errorf("accounts %q: %v %v %+v %v, want %v", acc, err, err2, m, got, want)
				}
				mc, gotC, err := st.CampaignsPage(ctx, "org_a", p, nil)
				wantC, err2 := st.Campaigns(ctx, "org_a", p)
				if err != nil || err2 != nil || !mc.AccountFound || !reflect.DeepEqual(gotC.Rows(), wantC.Rows()) && wantC.Len() > 0 {
					t.Errorf("campaigns %q: %v %v %+v %v, want %v", acc, err, err2, mc, gotC, wantC)
				}
			}
		})
	}
}
