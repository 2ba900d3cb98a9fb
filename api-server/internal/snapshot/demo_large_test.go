package snapshot

import (
	"testing"
	"time"
)

// TestDemoLarge: the large demo has the size issue 46 asks for, passes the
// document's validation, and its restated form differs only in the last
// RestatedDays days.
func TestDemoLarge(t *testing.T) {
	now := time.Date(2026, 11, 29, 6, 30, 0, 0, time.UTC)
	doc, again := DemoLarge(now), DemoLargeRestated(now)
	currencies, accounts, statuses := map[string]bool{}, 0, map[string]int{}
	for _, a := range doc.Accounts {
		if a.OrganizationID == DemoOrganization {
			accounts++
			currencies[a.Currency] = true
		}
	}
	for _, c := range doc.Campaigns {
		statuses[c.Status]++
	}
	if accounts < 20 || len(currencies) < 3 || len(doc.Campaigns) < 500 || statuses["PAUSED"] == 0 || statuses["ARCHIVED"] == 0 {
		t.Errorf("%d accounts, currencies %v, %d campaigns, statuses %v", accounts, currencies, len(doc.Campaigns), statuses)
	}
	var measured, unmeasured, noClick int
	restated := 0
	cut := now.AddDate(0, 0, -RestatedDays).Format(time.DateOnly)
	for i, in := range doc.Insights {
		if in.PurchaseMeasurement == "unavailable" {
			unmeasured++
		} else {
			measured++
		}
		if in.CampaignID != nil && *in.Clicks == 0 && *in.Impressions > 0 {
			noClick++
		}
		if in.Spend != again.Insights[i].Spend {
			restated++
			if in.Date <= cut {
				t.Fatalf("row %s of %s restated", in.ID, in.Date)
			}
		}
	}
	if measured == 0 || unmeasured == 0 || noClick == 0 || restated == 0 || len(doc.Insights) != len(again.Insights) {
		t.Errorf("measured %d, unmeasured %d, no click %d, restated %d", measured, unmeasured, noClick, restated)
	}
	if err := Validate(doc); err != nil {
		t.Fatal(err)
	}
}
