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

// TestPagesMatchPlainQueries: on both databases, the page methods (the
// seek on PostgreSQL from the 64th row on; the meta in the page's own
// statement) return exactly the rows of the plain LIMIT/OFFSET statements
// and the meta of the meta statement, at every offset around the seek
// threshold, on dates with many rows (ties broken by id); accounts and
// campaigns the ids a query of the test's own selects.
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
			refreshAggregates(t, b)
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
						wantM, err := st.MetaAlone(ctx, "org_a", acc)
						if err != nil {
							t.Fatal(err)
						}
						_, want, err := st.InsightsPlain(ctx, "org_a", p)
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
			// counts that position PostgreSQL's deep pages, computed again
			// as a writer other than the import does, follow.
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
			refreshAggregates(t, b)
			check("updated and deleted")
			for _, acc := range []string{"", "acc_a1"} {
				p := store.ListParams{Limit: 3, Offset: 1, AccountID: acc}
				if acc != "" {
					p.Offset = 0 // the account itself
				}
				m, got, err := st.AccountsPage(ctx, "org_a", p, nil)
				if err != nil || !m.AccountFound {
					t.Fatalf("accounts %q: %v %+v", acc, err, m)
				}
				if g, w := accountIDs(got.Rows()), ids(t, b, "ad_accounts", "id", acc, p); !reflect.DeepEqual(g, w) || len(w) == 0 {
					t.Errorf("accounts %q: %v, want %v", acc, g, w)
				}
				got.Release()
				mc, gotC, err := st.CampaignsPage(ctx, "org_a", p, nil)
				if err != nil || !mc.AccountFound {
					t.Fatalf("campaigns %q: %v %+v", acc, err, mc)
				}
				if g, w := campaignIDs(gotC.Rows()), ids(t, b, "campaigns", "account_id", acc, p); !reflect.DeepEqual(g, w) || len(w) == 0 {
					t.Errorf("campaigns %q: %v, want %v", acc, g, w)
				}
				gotC.Release()
			}
		})
	}
}

// ids selects, with a query of its own, the ids of the page p of org_a's
// rows of table (filtered on column by acc when not empty).
func ids(t *testing.T, b dbtest.Backend, table, column, acc string, p store.ListParams) []string {
	t.Helper()
	q := "SELECT id FROM " + table + " WHERE organization_id = 'org_a'"
	args := []any{}
	if acc != "" {
		q += " AND " + column + " = ?"
		args = append(args, acc)
	}
	q += " ORDER BY id LIMIT ? OFFSET ?"
	rows, err := b.DB.QueryContext(t.Context(), q, append(args, p.Limit, p.Offset)...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func accountIDs(rs []store.AccountRow) (out []string) {
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

func campaignIDs(rs []store.CampaignRow) (out []string) {
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}
