package snapshot

import (
	"fmt"
	"time"
)

// The demo of real size (`svc-api demo --scale large`; issue 46): the small
// demo plus, in DemoOrganization, LargeAccounts more accounts in four
// currencies with LargeCampaigns campaigns each (realistic names; some
// paused or archived, some of those still spending), LargeDays days of
// insights, purchase evidence on some rows only, and some campaign days
// with impressions but no click. DemoLargeRestated is the same document
// with the last RestatedDays days restated, as a second import would bring
// them.

// The size of the large demo.
const (
	LargeAccounts  = 21
	LargeCampaigns = 25
	LargeDays      = 90
	RestatedDays   = 7
)

var (
	largeMarkets = []struct{ code, name, currency, tz string }{
		{"de", "Germany", "EUR", "Europe/Berlin"}, {"fr", "France", "EUR", "Europe/Paris"},
		{"us", "United States", "USD", "America/New_York"}, {"ca", "Canada", "USD", "America/Toronto"},
		{"uk", "United Kingdom", "GBP", "Europe/London"}, {"jp", "Japan", "JPY", "Asia/Tokyo"},
		{"es", "Spain", "EUR", "Europe/Madrid"},
	}
	largeBrands  = []string{"Acme Outdoor", "Acme Home", "Acme Kids"}
	largeThemes  = []string{"Prospecting", "Retargeting", "Brand awareness", "Black Friday", "Spring sale", "Summer clearance", "New arrivals", "Loyalty", "App installs"}
	largeFormats = []string{"Video", "Carousel", "Catalog", "Static", "Stories"}
)

// largeAccount is the i-th account of the large demo (0-based).
func largeAccount(i int) demoAccount {
	m := largeMarkets[i%len(largeMarkets)]
	brand := largeBrands[i/len(largeMarkets)%len(largeBrands)]
	measurement := []string{"reported_purchase_value", "", "unavailable", "reported_purchase_count"}[i%4]
	return demoAccount{
		id: fmt.Sprintf("acc_large_%02d", i+1), org: DemoOrganization, platform: fmt.Sprintf("act_7000%04d", i+1),
		name: brand + " " + m.name, currency: m.currency, tz: m.tz, measurement: measurement,
	}
}

// largeStatus is the status of a campaign: mostly ACTIVE, some PAUSED and
// ARCHIVED; lastDay is the number of days before today of its last row (0:
// it still spends; paused ones mostly stopped a while ago, some still
// spend, as paused campaigns do while a change propagates).
func largeStatus(id string, j int) (status string, lastDay int) {
	switch n := noise(100, id, "status"); {
	case n < 12:
		return "PAUSED", []int{0, 10, 20, 30}[j%4]
	case n < 20:
		return "ARCHIVED", []int{0, 45, 60}[j%3]
	default:
		return "ACTIVE", 0
	}
}

// DemoLarge returns Demo(now) with the large demo's accounts, campaigns and
// LargeDays days of insights added to DemoOrganization.
func DemoLarge(now time.Time) *Document {
	return demoLarge(now, false)
}

// DemoLargeRestated is DemoLarge with the last RestatedDays days of the
// large accounts restated (other spend, impressions and clicks), as the
// second import of a platform that corrects its recent figures.
func DemoLargeRestated(now time.Time) *Document {
	return demoLarge(now, true)
}

func demoLarge(now time.Time, restated bool) *Document {
	doc := Demo(now)
	now = now.UTC()
	today := now.Truncate(24 * time.Hour)
	sync := now.Truncate(time.Hour).Format(time.RFC3339)
	for i := range LargeAccounts {
		a := largeAccount(i)
		doc.Accounts = append(doc.Accounts, Account{
			ID: a.id, OrganizationID: a.org, PlatformAdAccountID: a.platform, AccountName: a.name,
			Currency: a.currency, Timezone: a.tz, IsActive: ptr(i%10 != 9), LastSyncAt: ptr(sync),
			RawPayload: []byte(`{"demo":true}`),
		})
		var cmps []largeCampaign
		for j := range LargeCampaigns {
			id := fmt.Sprintf("cmp_large_%02d_%02d", i+1, j+1)
			status, last := largeStatus(id, j)
			name := fmt.Sprintf("%s | %s | %s", largeThemes[(i+j)%len(largeThemes)], largeFormats[j%len(largeFormats)], a.name)
			if j >= len(largeThemes) {
				name += fmt.Sprintf(" #%d", j/len(largeThemes)+1)
			}
			c := Campaign{ID: id, AccountID: a.id, Name: name, Objective: []string{"OUTCOME_SALES", "OUTCOME_TRAFFIC", "OUTCOME_AWARENESS"}[j%3],
				Status: status, EffectiveStatus: ptr(status), SyncedAt: ptr(sync),
				DailyBudget: ptr(amount(uint64(1000+noise(20000, id)), a.currency))}
			doc.Campaigns = append(doc.Campaigns, c)
			cmps = append(cmps, largeCampaign{id: id, lastDay: last, scale: uint64(1 + noise(8, id, "scale"))})
		}
		for d := range LargeDays {
			date := today.AddDate(0, 0, -d).Format(time.DateOnly)
			doc.Insights = append(doc.Insights, largeDay(a, cmps, date, d, sync, restated && d < RestatedDays)...)
		}
	}
	return doc
}

// largeCampaign is a campaign of the large demo as its rows need it.
type largeCampaign struct {
	id      string
	lastDay int    // days before today of its last row
	scale   uint64 // size of its budget, 1 to 8
}

// largeDay returns the rows of one account and day: one per campaign that
// still ran that day, then the account-level row with their sums.
// Restated rows have other figures for the same keys.
func largeDay(a demoAccount, cmps []largeCampaign, date string, day int, sync string, restated bool) []Insight {
	m := a.measurement
	if m == "" {
		m = "reported_purchase_value"
		if day%3 == 0 {
			m = "unavailable"
		}
	}
	salt := ""
	if restated {
		salt = "restated"
	}
	var rows []Insight
	var total metrics
	var maxReach uint64
	for _, c := range cmps {
		if day < c.lastDay {
			continue
		}
		impressions := c.scale * uint64(300+noise(3000, c.id, date, salt))
		mt := metrics{
			impressions: impressions,
			reach:       impressions * uint64(70+noise(25, c.id, date, "r")) / 100,
			clicks:      impressions * uint64(5+noise(30, c.id, date, "c", salt)) / 1000,
			spend:       impressions * uint64(300+noise(900, c.id, date, "s", salt)) / 1000,
			purchases:   uint64(noise(9, c.id, date, "p")),
		}
		if noise(20, c.id, date, "noclick") == 0 { // impressions but no click
			mt.clicks = 0
		}
		mt.value = mt.purchases * uint64(2000+noise(9000, c.id, date, "pv"))
		total.impressions += mt.impressions
		total.reach += mt.reach
		total.clicks += mt.clicks
		total.spend += mt.spend
		total.purchases += mt.purchases
		total.value += mt.value
		maxReach = max(maxReach, mt.reach)
		in := demoInsight(a, m, mt, date, sync)
		in.ID = fmt.Sprintf("ins_%s_%s", c.id, date)
		in.CampaignID = ptr(c.id)
		rows = append(rows, in)
	}
	total.reach = maxReach + (total.reach-maxReach)*8/10
	acc := demoInsight(a, m, total, date, sync)
	acc.ID = fmt.Sprintf("ins_%s_%s", a.id, date)
	return append(rows, acc)
}
