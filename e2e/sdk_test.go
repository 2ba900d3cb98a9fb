package e2e

import (
	"net/http"
	"slices"
	"testing"

	"github.com/adsnap/svc/e2e/internal/harness"
	svc "github.com/adsnap/svc/sdk-go"
)

func (e *env) sdk(t *testing.T, base, key string, opts ...svc.Option) *svc.Client {
	t.Helper()
	c, err := svc.NewClient(append([]svc.Option{svc.WithAPIKey(key), svc.WithSiteURL(base),
		svc.WithHTTPClient(harness.ClientFrom("127.0.0.12"))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func testSDK(t *testing.T, e *env) {
	f := e.fix
	c := e.sdk(t, e.replicas[1].URL, e.keys["alpha_aci"])
	ctx := t.Context()

	var accounts []string
	for a, err := range c.Accounts.All(ctx, &svc.AccountListOptions{ListOptions: svc.ListOptions{Limit: 1}}) {
		if err != nil {
			t.Fatal(err)
		}
		accounts = append(accounts, a.ID)
	}
	if want := f.AccountsOf(harness.OrgAlpha); !slices.Equal(accounts, want) {
		t.Errorf("accounts %v, want %v", accounts, want)
	}

	var campaigns int
	for cmp, err := range c.Campaigns.All(ctx, &svc.CampaignListOptions{ListOptions: svc.ListOptions{Limit: 4}}) {
		if err != nil {
			t.Fatal(err)
		}
		if f.OrgOf(accountOfCampaign(f, cmp.ID)) != harness.OrgAlpha {
			t.Errorf("campaign %s is not alpha's", cmp.ID)
		}
		campaigns++
	}
	if want := len(f.ExpectedCampaigns(harness.OrgAlpha, "")); campaigns != want {
		t.Errorf("%d campaigns, want %d", campaigns, want)
	}

	var rows []svc.Insight
	for in, err := range c.Insights.All(ctx, &svc.InsightListOptions{ListOptions: svc.ListOptions{Limit: 100}}) {
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, in)
	}
	want := f.ExpectedInsights(harness.OrgAlpha, "", f.Today.AddDate(0, 0, -29), f.Today)
	if len(rows) != len(want) {
		t.Fatalf("%d insights, want %d", len(rows), len(want))
	}
	unavailable := 0
	for i, in := range rows {
		w := want[i].(map[string]any)
		if in.ID != w["id"] || string(in.Spend) != w["spend"] || in.Account.Currency != w["account"].(map[string]any)["currency"] {
			t.Errorf("row %d: %+v, want %v", i, in, w)
		}
		if in.PurchaseMeasurement == svc.PurchaseUnavailable {
			unavailable++
			if in.Purchases != nil || in.PurchaseValue != nil || in.ROAS != nil {
				t.Errorf("row %s: purchase fields present although unavailable", in.ID)
			}
		}
	}
	if unavailable == 0 {
		t.Fatal("no unavailable rows in the fixture window; the check proves nothing")
	}
	// Totals per (currency, level), never mixed; unavailable never counted as zero.
	//lint:ignore SA1019 the client-side summary is deprecated but still shipped: it must stay right.
	sum := svc.SummarizeInsights(rows)
	if len(sum) != 4 { // EUR and USD × account and campaign
		t.Fatalf("summary groups: %+v", sum)
	}
	for _, s := range sum {
		if s.Purchases != nil {
			t.Errorf("group %s/%s: purchases total %v although some rows are unavailable", s.Currency, s.Level, *s.Purchases)
		}
	}

	// Errors come back typed.
	_, err := e.sdk(t, e.replicas[0].URL, e.keys["alpha_c"]).Accounts.List(ctx, nil)
	if !svc.IsForbidden(err) {
		t.Errorf("missing scope: %v", err)
	}
	_, err = c.Campaigns.List(ctx, &svc.CampaignListOptions{ListOptions: svc.ListOptions{AccountID: "acc_gamma_gbp"}})
	if !svc.IsNotFound(err) {
		t.Errorf("foreign account: %v", err)
	}
	if resp, body := e.get(t, harness.ClientFrom("127.0.0.12"), e.replicas[0].URL+"/api/v1/developer/accounts", ""); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no key: %d %s", resp.StatusCode, body)
	}
}

// accountOfCampaign returns the account id of a campaign in the fixture.
func accountOfCampaign(f *harness.Fixture, id string) string {
	for _, c := range f.Doc.Campaigns {
		if c.ID == id {
			return c.AccountID
		}
	}
	return ""
}
