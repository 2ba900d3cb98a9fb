package snapshot_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/snapshot"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
)

// countsDoc is a document of one organization, account and two
// account-level insights of one day whose counts are n.
func countsDoc(n string) string {
	row := func(id string) string {
		return `{"id": "` + id + `", "accountId": "acc_o", "campaignId": null, "date": "2026-11-20", "attributionWindow": "7d_click",
		  "purchaseMeasurement": "unavailable", "spend": "1", "ctr": "1", "cpc": "1", "cpm": "1",
		  "impressions": ` + n + `, "reach": ` + n + `, "clicks": ` + n + `, "conversions": ` + n + `}`
	}
	return `{"organizations": [{"id": "org_o", "name": "O", "subscriptionStatus": "active"}],
	  "accounts": [{"id": "acc_o", "organizationId": "org_o", "platformAdAccountId": "p", "accountName": "n",
	                "currency": "EUR", "timezone": "UTC", "isActive": true}],
	  "insights": [` + row("ins_o1") + `, ` + row("ins_o2") + `]}`
}

// TestImportRefusesCountsThatOverflow (security review 2, finding 4): two
// rows with impressions 2^63−1 (SQLite's summary showed −2; PostgreSQL's
// sums trigger failed "bigint out of range" and rejected the whole
// document) are refused by validation, each count with its JSON path, and
// nothing is written; counts at MaxCount import.
func TestImportRefusesCountsThatOverflow(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		ctx := t.Context()
		d, err := snapshot.Parse(strings.NewReader(countsDoc("9223372036854775807")))
		if err != nil {
			t.Fatal(err)
		}
		_, err = snapshot.Import(ctx, b.DB, d, time.Now().UTC())
		var want []string
		for i := range 2 {
			for _, f := range []string{"impressions", "reach", "clicks", "conversions"} {
				want = append(want, fmt.Sprintf("$.insights[%d].%s: 9223372036854775807 is more than 1000000000000", i, f))
			}
		}
		hasAll(t, problems(t, err), want...)
		for _, tb := range tables {
			if n := count(t, b.DB, tb); n != 0 {
				t.Errorf("%s has %d rows after a rejected import", tb, n)
			}
		}
		d, err = snapshot.Parse(strings.NewReader(countsDoc(fmt.Sprint(int64(snapshot.MaxCount)))))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := snapshot.Import(ctx, b.DB, d, time.Now().UTC()); err != nil {
			t.Fatalf("counts at MaxCount: %v", err)
		}
		if n := count(t, b.DB, "insights_daily"); n != 2 {
			t.Errorf("insights %d, want 2", n)
		}
	})
}
