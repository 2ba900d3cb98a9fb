package snapshot

import (
	"strconv"
	"testing"
	"time"
)

// TestDemoLarge: the large demo has the size and the shape issue 46 asks
// for (most campaigns stopped long ago, a modest set still spending, some
// paused ones that still spent in the last week), passes the document's
// validation, and its restated form differs only in the last RestatedDays
// days.
func TestDemoLarge(t *testing.T) {
	now := time.Date(2026, 11, 29, 6, 30, 0, 0, time.UTC)
	doc, again := DemoLarge(now), DemoLargeRestated(now)
	currencies, accounts, statuses := map[string]bool{}, 0, map[string]int{}
	org := map[string]bool{} // accounts of DemoOrganization
	for _, a := range doc.Accounts {
		if a.OrganizationID == DemoOrganization {
			accounts++
			currencies[a.Currency] = true
			org[a.ID] = true
		}
	}
	status := map[string]string{}
	for _, c := range doc.Campaigns {
		statuses[c.Status]++
		status[c.ID] = c.Status
	}
	if accounts < 20 || len(currencies) < 3 || len(doc.Campaigns) < 500 || statuses["PAUSED"] == 0 || statuses["ARCHIVED"] == 0 {
		t.Errorf("%d accounts, currencies %v, %d campaigns, statuses %v", accounts, currencies, len(doc.Campaigns), statuses)
	}
	if statuses["PAUSED"]+statuses["ARCHIVED"] < len(doc.Campaigns)*3/4 {
		t.Errorf("statuses %v: most campaigns of an organization of real size are paused or archived", statuses)
	}
	var measured, unmeasured, noClick int
	restated := 0
	cut := now.AddDate(0, 0, -RestatedDays).Format(time.DateOnly)
	since := func(days int) string { return now.AddDate(0, 0, -days+1).Format(time.DateOnly) }
	spent7, spent30, valued30, pausedSpent7 := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	// weeks[e] are the campaigns that spent in the 7 days ending e days
	// before now: "last week" is one of them, whatever the weekday.
	weeks := make([]map[string]bool, 8)
	for e := range weeks {
		weeks[e] = map[string]bool{}
	}
	zeroRows := 0
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
		if in.CampaignID == nil || !org[in.AccountID] {
			continue
		}
		spend, err := strconv.ParseFloat(in.Spend, 64)
		if err != nil {
			t.Fatalf("row %s: spend %q", in.ID, in.Spend)
		}
		id := *in.CampaignID
		switch {
		case spend == 0:
			zeroRows++
		case in.Date >= since(7):
			spent7[id], spent30[id] = true, true
			if status[id] == "PAUSED" || status[id] == "ARCHIVED" {
				pausedSpent7[id] = true
			}
		case in.Date >= since(30):
			spent30[id] = true
		}
		for e := range weeks {
			if spend > 0 && in.Date >= since(e+7) && in.Date < since(e) {
				weeks[e][id] = true
			}
		}
		if spend > 0 && in.Date >= since(30) && in.PurchaseValue != nil {
			valued30[id] = true
		}
	}
	if measured == 0 || unmeasured == 0 || noClick == 0 || restated == 0 || len(doc.Insights) != len(again.Insights) {
		t.Errorf("measured %d, unmeasured %d, no click %d, restated %d", measured, unmeasured, noClick, restated)
	}
	// A modest set still spends, so that a list per campaign of the last
	// week, or of the last 30 days where purchase value is known, is short
	// (TestMCPTenQuestions: at most 2,000 tokens); most stopped long ago.
	t.Logf("statuses %v; campaigns that spent in the last 7 days %d (paused or archived %d), in the last 30 days %d (purchase value known %d); rows of zero spend %d",
		statuses, len(spent7), len(pausedSpent7), len(spent30), len(valued30), zeroRows)
	if len(spent7) < 10 || len(spent7) > 40 || len(pausedSpent7) == 0 || len(valued30) < 5 || len(valued30) > 30 ||
		len(spent30) > len(doc.Campaigns)/10 || zeroRows == 0 {
		t.Errorf("spent in 7 days %d (paused %d), in 30 days %d (value known %d), zero rows %d",
			len(spent7), len(pausedSpent7), len(spent30), len(valued30), zeroRows)
	}
	var perWeek []int
	for e, w := range weeks {
		perWeek = append(perWeek, len(w))
		if len(w) > 40 {
			t.Errorf("%d campaigns spent in the 7 days ending %d days ago, more than 40", len(w), e)
		}
	}
	t.Logf("campaigns that spent in the 7 days ending 0, 1, … 7 days ago: %v", perWeek)
	if err := Validate(doc); err != nil {
		t.Fatal(err)
	}
}
