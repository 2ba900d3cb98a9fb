package snapshot_test

import (
	"errors"
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
