package snapshot_test

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/snapshot"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/uptrace/bun"
)

func problems(t *testing.T, err error) []string {
	t.Helper()
	var ve *snapshot.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want a *ValidationError, got %v", err)
	}
	return ve.Problems
}

func hasAll(t *testing.T, got []string, want ...string) {
	t.Helper()
	all := strings.Join(got, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("problems lack %q:\n%s", w, all)
		}
	}
}

func TestParseProblems(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want []string
	}{
		{`[]`, []string{"$: want a JSON object"}},
		{`{"accounts": [}`, []string{"$: not valid JSON"}},
		{`{"extra": 1, "accounts": {}}`, []string{"$.extra: unknown field", "$.accounts: want an array"}},
		{`{"insights": [{"id": "i"}, {"id": "j", "impressions": "many"}, {"id": "k", "bogus": 1}]}`,
			[]string{"$.insights[1].impressions: want an integer", `$.insights[2]: unknown field "bogus"`}},
	} {
		_, err := snapshot.Parse(strings.NewReader(tc.doc))
		hasAll(t, problems(t, err), tc.want...)
	}
}

func TestValidateProblems(t *testing.T) {
	doc := `{
	  "organizations": [{"id": "org a", "subscriptionStatus": "gold", "members": [{"userId": "u", "role": "king"}]}],
	  "accounts": [{"id": "acc_1", "organizationId": "org_a", "platformAdAccountId": "p", "accountName": "n",
	                "currency": "euro", "timezone": "Mars/Base", "lastSyncAt": "yesterday"}],
	  "campaigns": [{"id": "cmp_1", "accountId": "acc_1", "name": "n", "objective": "o", "status": "s", "dailyBudget": "1,50"}],
	  "insights": [{"id": "ins_1", "accountId": "acc_1", "campaignId": null, "date": "2026-02-30", "attributionWindow": "w",
	                "purchaseMeasurement": "guess", "spend": "1e3", "ctr": "1", "cpc": "1", "cpm": "1",
	                "impressions": -1, "reach": 1, "clicks": 1},
	               {"id": "ins_1", "accountId": "acc_2", "campaignId": "cmp_1", "date": "2026-01-01", "attributionWindow": "w",
	                "purchaseMeasurement": "unavailable", "spend": "1", "ctr": "1", "cpc": "1", "cpm": "1",
	                "impressions": 1, "reach": 1, "clicks": 1}]
	}`
	d, err := snapshot.Parse(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	hasAll(t, problems(t, snapshot.Validate(d)),
		`$.organizations[0].id: want an identifier`,
		`$.organizations[0].subscriptionStatus: want one of trialing, active, canceled, got "gold"`,
		`$.organizations[0].members[0].role`,
		`$.accounts[0].currency`,
		`$.accounts[0].timezone: unknown IANA time zone`,
		`$.accounts[0].isActive: required`,
		`$.accounts[0].lastSyncAt: not an RFC 3339 date-time`,
		`$.campaigns[0].dailyBudget: not a decimal string`,
		`$.insights[0].date: not a date (want YYYY-MM-DD)`,
		`$.insights[0].purchaseMeasurement`,
		`$.insights[0].spend: not a decimal string`,
		`$.insights[0].impressions: must not be negative`,
		`$.insights[1]: duplicate id "ins_1" (first at $.insights[0])`,
		`$.insights[1].campaignId: campaign "cmp_1" belongs to account "acc_1", not "acc_2"`,
	)
}

func count(t *testing.T, db *bun.DB, table string) int {
	t.Helper()
	n, err := db.NewSelect().TableExpr(table).Count(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

var tables = []string{"organizations", "organization_members", "ad_accounts", "campaigns", "insights_daily", "lead_contacts", "organization_snapshots"}

func TestImport(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		ctx := t.Context()
		today := time.Now().UTC()
		// Nothing is written when a reference is missing from document and database.
		bad := `{"campaigns": [{"id": "cmp_x", "accountId": "acc_nowhere", "name": "n", "objective": "o", "status": "s"}],
		         "accounts": [{"id": "acc_y", "organizationId": "org_nowhere", "platformAdAccountId": "p", "accountName": "n",
		                       "currency": "EUR", "timezone": "UTC", "isActive": true}],
		         "organizations": [{"id": "org_ok", "subscriptionStatus": "active"}]}`
		d, err := snapshot.Parse(strings.NewReader(bad))
		if err != nil {
			t.Fatal(err)
		}
		_, err = snapshot.Import(ctx, b.DB, d, today)
		hasAll(t, problems(t, err),
			`$.campaigns[0].accountId: account "acc_nowhere" is neither in the document nor in the database`,
			`$.accounts[0].organizationId: organization "org_nowhere" is neither`)
		for _, tb := range tables {
			if n := count(t, b.DB, tb); n != 0 {
				t.Errorf("%s has %d rows after a rejected import", tb, n)
			}
		}

		// The fixture imports, and importing it again changes nothing.
		testenv.Load(t, b.DB, today)
		counts := map[string]int{}
		for _, tb := range tables {
			counts[tb] = count(t, b.DB, tb)
		}
		if counts["insights_daily"] != 25 || counts["ad_accounts"] != 3 || counts["organization_members"] != 4 {
			t.Fatalf("counts %v", counts)
		}
		testenv.Load(t, b.DB, today)
		for _, tb := range tables {
			if n := count(t, b.DB, tb); n != counts[tb] {
				t.Errorf("%s: %d rows after re-import, want %d", tb, n, counts[tb])
			}
		}

		// A later document may refer to stored rows; a row never changes organization.
		later := `{"insights": [{"id": "ins_new", "accountId": "acc_a1", "campaignId": "cmp_a1", "date": "2026-01-01",
		             "attributionWindow": "w", "purchaseMeasurement": "unavailable", "spend": "1", "ctr": "1",
		             "cpc": "1", "cpm": "1", "impressions": 1, "reach": 1, "clicks": 1}],
		           "accounts": [{"id": "acc_b1", "organizationId": "org_a", "platformAdAccountId": "p", "accountName": "n",
		             "currency": "EUR", "timezone": "UTC", "isActive": true}]}`
		d, err = snapshot.Parse(strings.NewReader(later))
		if err != nil {
			t.Fatal(err)
		}
		_, err = snapshot.Import(ctx, b.DB, d, today)
		hasAll(t, problems(t, err), `$.accounts[0].organizationId: account "acc_b1" already belongs to another organization`)
		d.Accounts = nil
		if _, err := snapshot.Import(ctx, b.DB, d, today); err != nil {
			t.Fatalf("import referring to stored rows: %v", err)
		}
		if n := count(t, b.DB, "insights_daily"); n != 26 {
			t.Errorf("insights %d, want 26", n)
		}
	})
}

func TestDemoImportsTwice(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		now := time.Now()
		doc := snapshot.Demo(now)
		if err := snapshot.Validate(doc); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := snapshot.Import(t.Context(), b.DB, snapshot.Demo(now), now); err != nil {
				t.Fatal(err)
			}
		}
		if n := count(t, b.DB, "insights_daily"); n != len(doc.Insights) || n < 5*3*snapshot.DemoDays {
			t.Errorf("insights %d, want %d", n, len(doc.Insights))
		}
	})
}

// TestDemoDataConsistent: every demo amount carries its currency's number of
// decimals (none for JPY), and each account-level row holds the sums of that
// account's campaign rows of the same day (reach, which overlaps between
// campaigns, lies between the largest campaign's and the sum).
func TestDemoDataConsistent(t *testing.T) {
	doc := snapshot.Demo(time.Date(2026, 11, 23, 18, 0, 0, 0, time.UTC))
	currency := map[string]string{}
	for _, a := range doc.Accounts {
		currency[a.ID] = a.Currency
	}
	decimals := func(where, s, cur string) {
		t.Helper()
		want := 2
		if cur == "JPY" {
			want = 0
		}
		_, frac, _ := strings.Cut(s, ".")
		if len(frac) != want {
			t.Errorf("%s = %q in %s: want %d decimals", where, s, cur, want)
		}
	}
	for _, c := range doc.Campaigns {
		for _, b := range []*string{c.DailyBudget, c.LifetimeBudget} {
			if b != nil {
				decimals(c.ID+" budget", *b, currency[c.AccountID])
			}
		}
	}
	type key struct{ account, date string }
	type sums struct {
		impressions, clicks, reach, maxReach int64
		spend, purchases, value              *big.Rat
		rows                                 int
	}
	camp := map[key]*sums{}
	acct := map[key]snapshot.Insight{}
	for _, in := range doc.Insights {
		cur := currency[in.AccountID]
		for name, v := range map[string]string{"spend": in.Spend, "cpc": in.CPC, "cpm": in.CPM} {
			decimals(in.ID+" "+name, v, cur)
		}
		if in.PurchaseValue != nil && cur == "JPY" && *in.PurchaseValue != float64(int64(*in.PurchaseValue)) {
			t.Errorf("%s purchaseValue %v: yen have no decimals", in.ID, *in.PurchaseValue)
		}
		k := key{in.AccountID, in.Date}
		if in.CampaignID == nil {
			acct[k] = in
			continue
		}
		s := camp[k]
		if s == nil {
			s = &sums{spend: new(big.Rat), purchases: new(big.Rat), value: new(big.Rat)}
			camp[k] = s
		}
		s.rows++
		s.impressions += *in.Impressions
		s.clicks += *in.Clicks
		s.reach += *in.Reach
		s.maxReach = max(s.maxReach, *in.Reach)
		sp, _ := new(big.Rat).SetString(in.Spend)
		s.spend.Add(s.spend, sp)
		if in.Purchases != nil {
			s.purchases.Add(s.purchases, new(big.Rat).SetFloat64(*in.Purchases))
		}
		if in.PurchaseValue != nil {
			v, _ := new(big.Rat).SetString(fmt.Sprint(*in.PurchaseValue))
			s.value.Add(s.value, v)
		}
	}
	if len(acct) != len(doc.Accounts)*snapshot.DemoDays || len(camp) != len(acct) {
		t.Fatalf("%d account-level days, %d with campaign rows, want %d", len(acct), len(camp), len(doc.Accounts)*snapshot.DemoDays)
	}
	if _, ok := acct[key{"acc_demo_eu", "2026-11-23"}]; !ok {
		t.Errorf("no row for today (2026-11-23)")
	}
	for k, a := range acct {
		s := camp[k]
		sp, _ := new(big.Rat).SetString(a.Spend)
		if *a.Impressions != s.impressions || *a.Clicks != s.clicks || sp.Cmp(s.spend) != 0 ||
			*a.Reach < s.maxReach || *a.Reach > s.reach {
			t.Errorf("%v: account row impressions %d clicks %d spend %s reach %d; campaigns sum to %d, %d, %s, reach %d..%d",
				k, *a.Impressions, *a.Clicks, a.Spend, *a.Reach, s.impressions, s.clicks, s.spend.FloatString(2), s.maxReach, s.reach)
		}
		if a.Purchases != nil && new(big.Rat).SetFloat64(*a.Purchases).Cmp(s.purchases) != 0 {
			t.Errorf("%v: account purchases %v, campaigns %s", k, *a.Purchases, s.purchases.FloatString(0))
		}
		if a.PurchaseValue != nil {
			if v, _ := new(big.Rat).SetString(fmt.Sprint(*a.PurchaseValue)); v.Cmp(s.value) != 0 {
				t.Errorf("%v: account purchase value %v, campaigns %s", k, *a.PurchaseValue, s.value.FloatString(2))
			}
		}
	}
}
