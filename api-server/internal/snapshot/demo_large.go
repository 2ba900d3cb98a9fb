package snapshot

import (
	"fmt"
	"time"
)

// The demo of real size (`svc-api demo --scale large`; issue 46): the small
// demo plus, in DemoOrganization, LargeAccounts more accounts in four
// currencies with LargeCampaigns campaigns each (realistic names), and
// LargeDays days of insights. Like a real organization of that size, most
// campaigns are ARCHIVED or PAUSED and stopped spending weeks or months ago
// (some before the LargeDays days, so they have no rows at all); a modest
// set still spends: one always-on campaign in each active account, a few
// new launches, a few paused in the last days whose rows still show spend
// (as paused campaigns do while a change propagates); some ACTIVE
// campaigns stopped delivering and report days of zero spend (see
// largeLife). Purchase evidence is on some rows only, some campaign days
// have impressions but no click. DemoLargeRestated is the same document
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

// largeLife is the status of campaign j of account i (id its id) and the
// days of its rows, in days before today: it spent from first down to
// last, then reported zero spend for the quiet days after last (an ACTIVE
// campaign that stopped delivering). A campaign whose last is LargeDays or
// more has no rows in the demo. Roles rotate through the accounts' campaigns:
//   - in each active account, one always-on ACTIVE campaign (spends every
//     day); in every fifth, a new launch of the last 10 to 29 days; in
//     three, a campaign PAUSED in the last 3 days that still spent since;
//   - two more PAUSED campaigns an account, stopped 3 to 62 days ago (a few
//     of them in the last week);
//   - in every fourth account, an ACTIVE campaign that has not delivered
//     for 35 to 54 days (rows of zero spend every day since);
//   - the rest PAUSED (stopped 31 to 88 days ago) or ARCHIVED (stopped 45
//     to 194 days ago).
func largeLife(i, j int, id string) (status string, first, last, quiet int) {
	live := i%10 != 9 // the accounts largeAccount makes inactive
	long := 400       // started before the demo's days
	switch k := (j + 3*i) % LargeCampaigns; {
	case k == 0 && live:
		return "ACTIVE", long, 0, 0
	case k == 1 && live && i%5 == 0:
		return "ACTIVE", 10 + int(noise(20, id, "first")), 0, 0
	case k == 2 && live && i%6 == 1:
		return "PAUSED", 60 + int(noise(200, id, "first")), int(noise(3, id, "last")), 0
	case k == 1 || k == 2:
		last = 3 + int(noise(60, id, "last"))
		return "PAUSED", last + 20 + int(noise(60, id, "first")), last, 0
	case k == 3 && i%4 == 1:
		last = 35 + int(noise(20, id, "last"))
		return "ACTIVE", long, last, last
	case k < 10:
		last = 31 + int(noise(58, id, "last"))
		return "PAUSED", last + 15 + int(noise(90, id, "first")), last, 0
	default:
		last = 45 + int(noise(150, id, "last"))
		return "ARCHIVED", last + 10 + int(noise(60, id, "first")), last, 0
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
			status, first, last, quiet := largeLife(i, j, id)
			name := fmt.Sprintf("%s | %s | %s", largeThemes[(i+j)%len(largeThemes)], largeFormats[j%len(largeFormats)], a.name)
			if j >= len(largeThemes) {
				name += fmt.Sprintf(" #%d", j/len(largeThemes)+1)
			}
			c := Campaign{ID: id, AccountID: a.id, Name: name, Objective: []string{"OUTCOME_SALES", "OUTCOME_TRAFFIC", "OUTCOME_AWARENESS"}[j%3],
				Status: status, EffectiveStatus: ptr(status), SyncedAt: ptr(sync),
				DailyBudget: ptr(amount(uint64(1000+noise(20000, id)), a.currency))}
			doc.Campaigns = append(doc.Campaigns, c)
			cmps = append(cmps, largeCampaign{id: id, first: first, last: last, quiet: quiet,
				alwaysOn: status == "ACTIVE" && first > LargeDays && quiet == 0, scale: uint64(1 + noise(8, id, "scale"))})
		}
		for d := range LargeDays {
			date := today.AddDate(0, 0, -d)
			noClick := (int(date.Unix()/86400) + i) % 7 // the always-on campaign has no click when 0
			doc.Insights = append(doc.Insights, largeDay(a, cmps, date.Format(time.DateOnly), d, noClick == 0, sync, restated && d < RestatedDays)...)
		}
	}
	return doc
}

// largeCampaign is a campaign of the large demo as its rows need it.
type largeCampaign struct {
	id                 string
	first, last, quiet int    // days before today: see largeLife
	alwaysOn           bool   // ACTIVE, spending every day
	scale              uint64 // size of its budget, 1 to 8
}

// largeDay returns the rows of one account and day: one per campaign that
// ran that day (of zero spend in its quiet days), then the account-level
// row with their sums. On a noClick day the always-on campaign's row has
// impressions but no click (so does a campaign's row on some other days).
// Restated rows have other figures for the same keys.
func largeDay(a demoAccount, cmps []largeCampaign, date string, day int, noClick bool, sync string, restated bool) []Insight {
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
		var mt metrics
		switch {
		case day > c.first || day < c.last-c.quiet:
			continue
		case day >= c.last:
			impressions := c.scale * uint64(300+noise(3000, c.id, date, salt))
			mt = metrics{
				impressions: impressions,
				reach:       impressions * uint64(70+noise(25, c.id, date, "r")) / 100,
				clicks:      impressions * uint64(5+noise(30, c.id, date, "c", salt)) / 1000,
				spend:       impressions * uint64(300+noise(900, c.id, date, "s", salt)) / 1000,
				purchases:   uint64(noise(9, c.id, date, "p")),
			}
			if noise(20, c.id, date, "noclick") == 0 || noClick && c.alwaysOn { // impressions but no click
				mt.clicks = 0
			}
			mt.value = mt.purchases * uint64(2000+noise(9000, c.id, date, "pv"))
		} // else a quiet day: a row of zeros
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
