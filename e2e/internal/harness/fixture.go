package harness

import (
	"encoding/json"
	"fmt"
	"time"
)

// The snapshot document of DESIGN §2a, written from the outside: these types
// are the e2e suite's own, not the server's.
type (
	Document struct {
		Organizations []Organization `json:"organizations"`
		Accounts      []Account      `json:"accounts"`
		Campaigns     []Campaign     `json:"campaigns"`
		Insights      []Insight      `json:"insights"`
		LeadContacts  []LeadContact  `json:"leadContacts"`
	}
	Organization struct {
		ID                 string   `json:"id"`
		Name               string   `json:"name"`
		SubscriptionStatus string   `json:"subscriptionStatus"`
		TrialEndsAt        *string  `json:"trialEndsAt"`
		Members            []Member `json:"members"`
	}
	Member struct {
		UserID  string `json:"userId"`
		Role    string `json:"role"`
		Removed bool   `json:"removed"`
	}
	Account struct {
		ID                   string          `json:"id"`
		OrganizationID       string          `json:"organizationId"`
		PlatformAdAccountID  string          `json:"platformAdAccountId"`
		AccountName          string          `json:"accountName"`
		Currency             string          `json:"currency"`
		Timezone             string          `json:"timezone"`
		IsActive             bool            `json:"isActive"`
		LastSyncAt           *string         `json:"lastSyncAt"`
		AccessTokenEncrypted string          `json:"accessTokenEncrypted"`
		RawPayload           json.RawMessage `json:"rawPayload"`
	}
	Campaign struct {
		ID              string          `json:"id"`
		AccountID       string          `json:"accountId"`
		Name            string          `json:"name"`
		Objective       string          `json:"objective"`
		Status          string          `json:"status"`
		EffectiveStatus *string         `json:"effectiveStatus"`
		DailyBudget     *string         `json:"dailyBudget"`
		LifetimeBudget  *string         `json:"lifetimeBudget"`
		SyncedAt        *string         `json:"syncedAt"`
		RawPayload      json.RawMessage `json:"rawPayload"`
	}
	Insight struct {
		ID                  string          `json:"id"`
		AccountID           string          `json:"accountId"`
		CampaignID          *string         `json:"campaignId"`
		Date                string          `json:"date"`
		AttributionWindow   string          `json:"attributionWindow"`
		PurchaseMeasurement string          `json:"purchaseMeasurement"`
		Spend               string          `json:"spend"`
		CTR                 string          `json:"ctr"`
		CPC                 string          `json:"cpc"`
		CPM                 string          `json:"cpm"`
		Impressions         int64           `json:"impressions"`
		Reach               int64           `json:"reach"`
		Clicks              int64           `json:"clicks"`
		Purchases           *float64        `json:"purchases"`
		PurchaseValue       *float64        `json:"purchaseValue"`
		ROAS                *float64        `json:"roas"`
		Conversions         int64           `json:"conversions"`
		SyncedAt            *string         `json:"syncedAt"`
		RawPayload          json.RawMessage `json:"rawPayload"`
	}
	LeadContact struct {
		ID        string `json:"id"`
		AccountID string `json:"accountId"`
		Email     string `json:"email"`
		Phone     string `json:"phone"`
	}
)

// Fixture is the e2e data set: three organizations, several currencies and
// time zones, account- and campaign-level insights, unavailable purchase
// rows, and a canary string in every never-returned column.
type Fixture struct {
	Doc      Document
	Canaries []string
	// MemberIDs are the canary user ids of members: never in an API
	// response, svc output or MCP message, but keys-admin, the operators'
	// tool, shows the issuer of each key.
	MemberIDs []string
	Today     time.Time
	// Users: the acting owner of each organization, and the admins whose
	// demotion and removal the lifecycle scenario tests.
	Owner                      map[string]string
	DemotedAdmin, RemovedAdmin string
}

// Organization ids.
const (
	OrgAlpha = "org_alpha"
	OrgBeta  = "org_beta"
	OrgGamma = "org_gamma"
)

// Days is how many days of insights each account has, ending today.
const Days = 20

// NewFixture builds the data set with fresh canaries. today is a UTC date.
func NewFixture(today time.Time) *Fixture {
	run := RandomHex(4)
	f := &Fixture{Today: today, Owner: map[string]string{}}
	canary := func(kind string) string {
		c := fmt.Sprintf("CANARY%s%s", kind, RandomHex(6))
		f.Canaries = append(f.Canaries, c)
		return c
	}
	user := func() string {
		c := canary("USER")
		f.MemberIDs = append(f.MemberIDs, c)
		return "user_" + c
	}
	str := func(s string) *string { return &s }
	num := func(v float64) *float64 { return &v }
	syncAt := today.Add(-90 * time.Minute).Format(time.RFC3339)
	trialEnds := today.AddDate(0, 0, 14).Format(time.RFC3339)

	f.Owner[OrgAlpha], f.Owner[OrgBeta], f.Owner[OrgGamma] = user(), user(), user()
	f.DemotedAdmin, f.RemovedAdmin = user(), user()
	f.Doc.Organizations = []Organization{
		{ID: OrgAlpha, Name: "Alpha " + run, SubscriptionStatus: "active", Members: []Member{
			{UserID: f.Owner[OrgAlpha], Role: "owner"},
			{UserID: f.DemotedAdmin, Role: "admin"},
			{UserID: f.RemovedAdmin, Role: "admin"},
			{UserID: user(), Role: "member"},
		}},
		{ID: OrgBeta, Name: "Beta " + run, SubscriptionStatus: "trialing", TrialEndsAt: &trialEnds, Members: []Member{
			{UserID: f.Owner[OrgBeta], Role: "owner"},
		}},
		{ID: OrgGamma, Name: "Gamma " + run, SubscriptionStatus: "active", Members: []Member{
			{UserID: f.Owner[OrgGamma], Role: "owner"},
		}},
	}
	accounts := []struct{ org, id, cur, tz string }{
		{OrgAlpha, "acc_alpha_eur", "EUR", "Europe/Berlin"},
		{OrgAlpha, "acc_alpha_usd", "USD", "America/New_York"},
		{OrgBeta, "acc_beta_jpy", "JPY", "Asia/Tokyo"},
		{OrgGamma, "acc_gamma_gbp", "GBP", "Europe/London"},
		{OrgGamma, "acc_gamma_brl", "BRL", "America/Sao_Paulo"},
	}
	for ai, a := range accounts {
		f.Doc.Accounts = append(f.Doc.Accounts, Account{
			ID: a.id, OrganizationID: a.org, PlatformAdAccountID: fmt.Sprintf("act_%d", 9100+ai),
			AccountName: "Account " + a.cur, Currency: a.cur, Timezone: a.tz, IsActive: ai != 1,
			LastSyncAt: str(syncAt), AccessTokenEncrypted: canary("TOKEN"),
			RawPayload: json.RawMessage(fmt.Sprintf(`{"token":%q}`, canary("RAWACC"))),
		})
		f.Doc.LeadContacts = append(f.Doc.LeadContacts, LeadContact{
			ID: "lead_" + a.id, AccountID: a.id, Email: canary("LEAD") + "@example.invalid", Phone: "+1555" + canary("PHONE"),
		})
		var campaigns []string
		for ci := range 3 {
			id := fmt.Sprintf("cmp_%s_%d", a.id[4:], ci)
			campaigns = append(campaigns, id)
			c := Campaign{ID: id, AccountID: a.id, Name: fmt.Sprintf("Campaign %d of %s", ci, a.id),
				Objective: "OUTCOME_SALES", Status: "ACTIVE", SyncedAt: str(syncAt),
				RawPayload: json.RawMessage(fmt.Sprintf(`{"x":%q}`, canary("RAWCMP")))}
			switch ci {
			case 0:
				c.DailyBudget, c.EffectiveStatus = str("25.50"), str("ACTIVE")
			case 1:
				c.LifetimeBudget, c.Status = str("1000.00"), "PAUSED"
			}
			f.Doc.Campaigns = append(f.Doc.Campaigns, c)
		}
		for d := range Days {
			date := today.AddDate(0, 0, -d).Format("2006-01-02")
			for li, cmp := range append([]string{""}, campaigns...) {
				in := Insight{
					ID: fmt.Sprintf("ins_%s_%s_%d", a.id[4:], date, li), AccountID: a.id, Date: date,
					AttributionWindow: "7d_click_1d_view", PurchaseMeasurement: "reported_purchase_value",
					Spend: fmt.Sprintf("%d.%02d", 10+d, li*7), CTR: "1.20", CPC: "0.4000", CPM: "6.1",
					Impressions: int64(1000 + d*10 + li), Reach: int64(800 + d), Clicks: int64(20 + li),
					Purchases: num(float64(li + 1)), PurchaseValue: num(12.5 * float64(li+1)), ROAS: num(1.25),
					Conversions: 9137468251, SyncedAt: str(syncAt),
					RawPayload: json.RawMessage(fmt.Sprintf(`{"p":%q}`, canary("RAWINS"))),
				}
				if cmp != "" {
					in.CampaignID = str(cmp)
				}
				switch (d + li) % 5 {
				case 0: // stored numbers that must never be returned
					in.PurchaseMeasurement = "unavailable"
					in.Purchases, in.PurchaseValue, in.ROAS = num(777), num(7777.77), num(77.7)
				case 1:
					in.PurchaseMeasurement = "reported_purchase_count"
					in.PurchaseValue, in.ROAS = nil, nil
				}
				f.Doc.Insights = append(f.Doc.Insights, in)
			}
		}
	}
	return f
}

// JSON is the document encoded for `svc-api import -`.
func (f *Fixture) JSON() []byte {
	b, err := json.Marshal(f.Doc)
	if err != nil {
		panic(err)
	}
	return b
}

// OrgOf returns the organization of an account id.
func (f *Fixture) OrgOf(accountID string) string {
	for _, a := range f.Doc.Accounts {
		if a.ID == accountID {
			return a.OrganizationID
		}
	}
	return ""
}

// AccountsOf returns the account ids of an organization, in id order.
func (f *Fixture) AccountsOf(org string) []string {
	var ids []string
	for _, a := range f.Doc.Accounts {
		if a.OrganizationID == org {
			ids = append(ids, a.ID)
		}
	}
	return sortedStrings(ids)
}
