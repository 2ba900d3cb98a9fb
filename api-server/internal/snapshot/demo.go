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

func ptr[T any](v T) *T { return &v }

// Demo returns the built-in demo snapshot as of now: two organizations,
// five accounts in different currencies and time zones, two campaigns per
// account, and DemoDays days (ending today, UTC) of account- and
// campaign-level insights, some with purchaseMeasurement "unavailable". The
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
				c.DailyBudget = ptr(cents(uint64(2500 + noise(10000, id))))
			} else {
				c.Status, c.EffectiveStatus = "PAUSED", nil
				c.LifetimeBudget = ptr(cents(uint64(100000 + noise(500000, id))))
			}
			doc.Campaigns = append(doc.Campaigns, c)
		}
		for d := range DemoDays {
			date := today.AddDate(0, 0, -d).Format(time.DateOnly)
			for level, cmp := range append([]string{""}, cmps...) {
				doc.Insights = append(doc.Insights, demoInsight(a, cmp, level, date, d, sync))
			}
		}
	}
	doc.LeadContacts = []LeadContact{
		{ID: "lead_demo_1", AccountID: "acc_demo_eu", Email: ptr("lead@example.invalid"), Phone: ptr("+49 30 0000000")},
	}
	return doc
}

func demoInsight(a demoAccount, cmp string, level int, date string, day int, sync string) Insight {
	scope := a.id
	id := fmt.Sprintf("ins_demo_%s_%s", a.id[len("acc_demo_"):], date)
	in := Insight{ID: id, AccountID: a.id, Date: date, AttributionWindow: "7d_click_1d_view", SyncedAt: ptr(sync)}
	if cmp != "" {
		scope = cmp
		in.ID = fmt.Sprintf("ins_demo_%s_%s", cmp[len("cmp_demo_"):], date)
		in.CampaignID = ptr(cmp)
	}
	impressions := uint64(2000 + noise(8000, scope, date))
	if level == 0 {
		impressions *= 2 // the account level covers more than one campaign
	}
	clicks := impressions * uint64(8+noise(25, scope, date, "c")) / 1000
	spendCents := impressions * uint64(400+noise(600, scope, date, "s")) / 1000
	in.Impressions = ptr(int64(impressions))
	in.Reach = ptr(int64(impressions * 85 / 100))
	in.Clicks = ptr(int64(clicks))
	in.Spend = cents(spendCents)
	in.CTR = cents(clicks * 10000 / impressions) // percent
	in.CPC = cents(spendCents / max(clicks, 1))
	in.CPM = cents(spendCents * 1000 / impressions)
	in.Conversions = ptr(int64(noise(40, scope, date, "v")))
	in.RawPayload = []byte(`{"demo":true}`)
	m := a.measurement
	if m == "" {
		m = "reported_purchase_value"
		if (day+level)%5 == 0 {
			m = "unavailable"
		}
	}
	in.PurchaseMeasurement = m
	purchases := float64(noise(12, scope, date, "p"))
	value := float64(purchases) * float64(3000+noise(6000, scope, date, "pv")) / 100
	switch m {
	case "reported_purchase_value":
		in.Purchases, in.PurchaseValue = ptr(purchases), ptr(value)
		if spendCents > 0 {
			in.ROAS = ptr(float64(int(value*10000/(float64(spendCents)/100))) / 10000)
		}
	case "reported_purchase_count":
		in.Purchases = ptr(purchases)
	}
	return in
}
