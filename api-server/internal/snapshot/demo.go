package snapshot

import (
	"fmt"
	"hash/fnv"
	"time"
)

// Demo organizations and users: svc-api demo creates its key as DemoOwner of
// DemoOrganization.
const (
	DemoOrganization = "org_demo_acme"
	DemoOwner        = "u_demo_acme_owner"
	DemoDays         = 120
)

type demoAccount struct {
	id, org, platform, name, currency, tz string
	measurement                           string // purchase measurement of its rows; "" alternates
}

var demoAccounts = []demoAccount{
	{"acc_demo_eu", DemoOrganization, "act_100200300", "Acme Europe", "EUR", "Europe/Berlin", ""},
	{"acc_demo_us", DemoOrganization, "act_100200301", "Acme North America", "USD", "America/New_York", "reported_purchase_value"},
	{"acc_demo_jp", DemoOrganization, "act_100200302", "Acme Japan", "JPY", "Asia/Tokyo", "unavailable"},
	{"acc_demo_uk", "org_demo_globex", "act_900800700", "Globex UK", "GBP", "Europe/London", "reported_purchase_count"},
	{"acc_demo_au", "org_demo_globex", "act_900800701", "Globex Australia", "AUD", "Australia/Sydney", ""},
}

// noise returns a deterministic number in [0, n) for a row.
func noise(n uint32, parts ...string) uint32 {
	h := fnv.New32a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum32() % n
}

func cents(v uint64) string { return fmt.Sprintf("%d.%02d", v/100, v%100) }

// minorDigits is the number of decimals of a currency's minor unit (ISO
// 4217): 0 for the yen, 2 for the other demo currencies.
func minorDigits(currency string) int {
	if currency == "JPY" {
		return 0
	}
	return 2
}

// amount writes v minor units of currency as a decimal string with the
// currency's number of decimals: 1250 is "12.50" EUR, and ¥1250 is "1250".
func amount(v uint64, currency string) string {
	if minorDigits(currency) == 0 {
		return fmt.Sprintf("%d", v)
	}
	return cents(v)
}

// major returns v minor units of currency as a number of major units.
func major(v uint64, currency string) float64 {
	if minorDigits(currency) == 0 {
		return float64(v)
	}
	return float64(v) / 100
}

func ptr[T any](v T) *T { return &v }

// Demo returns the built-in demo snapshot as of now: two organizations,
// five accounts in different currencies and time zones, two campaigns per
// account, and DemoDays days (ending today, UTC) of account- and
// campaign-level insights, some whose purchase measurement is "unavailable". The
// same now gives the same document; rows are keyed by account, campaign and
// date, so a later import updates rather than duplicates.
func Demo(now time.Time) *Document {
	now = now.UTC()
	today := now.Truncate(24 * time.Hour)
	sync := now.Truncate(time.Hour).Format(time.RFC3339)
	doc := &Document{
		Organizations: []Organization{
			{ID: DemoOrganization, Name: "Acme Demo", SubscriptionStatus: "active",
				Members: []Member{{UserID: DemoOwner, Role: "owner"}, {UserID: "u_demo_acme_analyst", Role: "member"},
					{UserID: "u_demo_acme_admin", Role: "admin"}}},
			{ID: "org_demo_globex", Name: "Globex Demo", SubscriptionStatus: "trialing",
				TrialEndsAt: ptr(today.AddDate(0, 0, 30).Format(time.RFC3339)),
				Members:     []Member{{UserID: "u_demo_globex_owner", Role: "owner"}}},
		},
	}
	for _, a := range demoAccounts {
		doc.Accounts = append(doc.Accounts, Account{
			ID: a.id, OrganizationID: a.org, PlatformAdAccountID: a.platform, AccountName: a.name,
			Currency: a.currency, Timezone: a.tz, IsActive: ptr(a.id != "acc_demo_au"), LastSyncAt: ptr(sync),
			AccessTokenEncrypted: ptr("demo-encrypted-token-" + a.id),
			RawPayload:           []byte(`{"demo":true}`),
		})
		var cmps []string
		for i, name := range []string{"Always-on prospecting", "Seasonal retargeting"} {
			id := fmt.Sprintf("cmp_demo_%s_%d", a.id[len("acc_demo_"):], i+1)
			cmps = append(cmps, id)
			c := Campaign{ID: id, AccountID: a.id, Name: name, Objective: "OUTCOME_SALES",
				Status: "ACTIVE", EffectiveStatus: ptr("ACTIVE"), SyncedAt: ptr(sync)}
			if i == 0 {
				c.DailyBudget = ptr(amount(uint64(2500+noise(10000, id)), a.currency))
			} else {
				c.Status, c.EffectiveStatus = "PAUSED", nil
				c.LifetimeBudget = ptr(amount(uint64(100000+noise(500000, id)), a.currency))
			}
			doc.Campaigns = append(doc.Campaigns, c)
		}
		for d := range DemoDays {
			date := today.AddDate(0, 0, -d).Format(time.DateOnly)
			doc.Insights = append(doc.Insights, demoDay(a, cmps, date, d, sync)...)
		}
	}
	doc.LeadContacts = []LeadContact{
		{ID: "lead_demo_1", AccountID: "acc_demo_eu", Email: ptr("lead@example.invalid"), Phone: ptr("+49 30 0000000")},
	}
	return doc
}

// metrics are one insight row's counts and amounts in minor units.
type metrics struct {
	impressions, reach, clicks, spend uint64
	purchases, value                  uint64 // value in minor units
}

// demoDay returns the insight rows of one account and day: one per
// campaign, then the account-level row, whose counts and amounts are the
// sums of the campaign rows (reach, which overlaps between campaigns, lies
// between the largest campaign's and the sum).
func demoDay(a demoAccount, cmps []string, date string, day int, sync string) []Insight {
	m := a.measurement
	if m == "" {
		m = "reported_purchase_value"
		if day%5 == 0 {
			m = "unavailable"
		}
	}
	var rows []Insight
	var total metrics
	var maxReach uint64
	for _, cmp := range cmps {
		impressions := uint64(2000 + noise(8000, cmp, date))
		c := metrics{
			impressions: impressions,
			reach:       impressions * uint64(70+noise(25, cmp, date, "r")) / 100,
			clicks:      impressions * uint64(8+noise(25, cmp, date, "c")) / 1000,
			spend:       impressions * uint64(400+noise(600, cmp, date, "s")) / 1000,
			purchases:   uint64(noise(12, cmp, date, "p")),
		}
		c.value = c.purchases * uint64(3000+noise(6000, cmp, date, "pv"))
		total.impressions += c.impressions
		total.reach += c.reach
		total.clicks += c.clicks
		total.spend += c.spend
		total.purchases += c.purchases
		total.value += c.value
		maxReach = max(maxReach, c.reach)
		in := demoInsight(a, m, c, date, sync)
		in.ID = fmt.Sprintf("ins_demo_%s_%s", cmp[len("cmp_demo_"):], date)
		in.CampaignID = ptr(cmp)
		in.Conversions = ptr(int64(noise(40, cmp, date, "v")))
		rows = append(rows, in)
	}
	total.reach = maxReach + (total.reach-maxReach)*8/10
	acc := demoInsight(a, m, total, date, sync)
	acc.ID = fmt.Sprintf("ins_demo_%s_%s", a.id[len("acc_demo_"):], date)
	acc.Conversions = ptr(int64(noise(80, a.id, date, "v")))
	return append(rows, acc)
}

// demoInsight returns the row of metrics mt; ids and level are the caller's.
func demoInsight(a demoAccount, measurement string, mt metrics, date, sync string) Insight {
	in := Insight{AccountID: a.id, Date: date, AttributionWindow: "7d_click_1d_view", SyncedAt: ptr(sync),
		PurchaseMeasurement: measurement, RawPayload: []byte(`{"demo":true}`)}
	in.Impressions = ptr(int64(mt.impressions))
	in.Reach = ptr(int64(mt.reach))
	in.Clicks = ptr(int64(mt.clicks))
	in.Spend = amount(mt.spend, a.currency)
	in.CTR = cents(mt.clicks * 10000 / max(mt.impressions, 1)) // percent, two decimals
	in.CPC = amount(mt.spend/max(mt.clicks, 1), a.currency)
	in.CPM = amount(mt.spend*1000/max(mt.impressions, 1), a.currency)
	switch measurement {
	case "reported_purchase_value":
		in.Purchases, in.PurchaseValue = ptr(float64(mt.purchases)), ptr(major(mt.value, a.currency))
		if mt.spend > 0 {
			in.ROAS = ptr(float64(mt.value*10000/mt.spend) / 10000) // 4 decimals, truncated
		}
	case "reported_purchase_count":
		in.Purchases = ptr(float64(mt.purchases))
	}
	return in
}
