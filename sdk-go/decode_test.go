package svc

import (
	"net/http"
	"testing"
	"time"
)

const metaJSON = `{"source":"stored_snapshot","liveMetaRequest":false,"limit":50,"offset":0,
	"nextOffset":null,"returned":2,"generatedAt":"2026-11-20T10:00:00Z",
	"dataAsOf":"2026-11-20T06:00:00Z","note":"Stored snapshot; may be stale.","extra":{"ignored":true}}`

var wantMeta = Meta{
	Source: "stored_snapshot", LiveMetaRequest: false, Limit: 50, Offset: 0,
	NextOffset: nil, Returned: 2, GeneratedAt: ptr(time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)),
	DataAsOf: "2026-11-20T06:00:00Z", Note: "Stored snapshot; may be stale.",
}

func TestDecodeAccounts(t *testing.T) {
	t.Parallel()
	c, _ := newServer(t, jsonHandler(http.StatusOK, `{"data":[
		{"id":"acc_1","accountName":"Acme EU","currency":"EUR","timezone":"Europe/Berlin",
		 "isActive":true,"lastSyncAt":"2026-11-20T06:00:00Z","unknownField":"tolerated"},
		{"id":"acc_2","accountName":"Acme US","currency":"USD","timezone":"America/New_York",
		 "isActive":false,"lastSyncAt":null}
	],"meta":`+metaJSON+`}`))
	got, err := c.Accounts.List(t.Context(), nil)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	want := &AccountPage{
		Data: []Account{
			{ID: "acc_1", AccountName: "Acme EU", Currency: "EUR", Timezone: "Europe/Berlin",
				IsActive: true, LastSyncAt: ptr(time.Date(2026, 11, 20, 6, 0, 0, 0, time.UTC))},
			{ID: "acc_2", AccountName: "Acme US", Currency: "USD", Timezone: "America/New_York"},
		},
		Meta: wantMeta,
	}
	if got.Response == nil || got.Response.StatusCode != http.StatusOK || got.Response.Meta == nil || got.Response.Meta.DataAsOf != got.Meta.DataAsOf {
		t.Errorf("Response = %+v, want status 200 and the page's meta", got.Response)
	}
	want.Response = got.Response
	if d := diff(want, got); d != "" {
		t.Errorf("List mismatch (path: want, got):\n%s", d)
	}
}

func TestDecodeCampaigns(t *testing.T) {
	t.Parallel()
	c, _ := newServer(t, jsonHandler(http.StatusOK, `{"data":[
		{"id":"cmp_1","platformAdAccountId":"act_991","name":"Winter sale","objective":"OUTCOME_SALES",
		 "status":"ACTIVE","effectiveStatus":"ACTIVE","dailyBudget":"25.00","lifetimeBudget":"1000.50",
		 "syncedAt":"2026-11-20T06:00:00+01:00","account":{"currency":"EUR","timezone":"Europe/Berlin"}},
		{"id":"cmp_2","platformAdAccountId":"act_991","name":"Brand","objective":"OUTCOME_AWARENESS",
		 "status":"PAUSED","effectiveStatus":null,"dailyBudget":null,"lifetimeBudget":null,
		 "syncedAt":null,"account":{"currency":"EUR","timezone":"Europe/Berlin"},"rawPayload":{}}
	],"meta":`+metaJSON+`}`))
	got, err := c.Campaigns.List(t.Context(), nil)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	eur := AccountRef{Currency: "EUR", Timezone: "Europe/Berlin"}
	want := &CampaignPage{
		Data: []Campaign{
			{ID: "cmp_1", PlatformAdAccountID: "act_991", Name: "Winter sale", Objective: "OUTCOME_SALES",
				Status: "ACTIVE", EffectiveStatus: ptr("ACTIVE"), DailyBudget: ptr(Decimal("25.00")),
				LifetimeBudget: ptr(Decimal("1000.50")),
				SyncedAt:       ptr(time.Date(2026, 11, 20, 5, 0, 0, 0, time.UTC)), Account: eur},
			{ID: "cmp_2", PlatformAdAccountID: "act_991", Name: "Brand", Objective: "OUTCOME_AWARENESS",
				Status: "PAUSED", Account: eur},
		},
		Meta: wantMeta,
	}
	if got.Response == nil || got.Response.StatusCode != http.StatusOK || got.Response.Meta == nil || got.Response.Meta.DataAsOf != got.Meta.DataAsOf {
		t.Errorf("Response = %+v, want status 200 and the page's meta", got.Response)
	}
	want.Response = got.Response
	if d := diff(want, got); d != "" {
		t.Errorf("List mismatch (path: want, got):\n%s", d)
	}
}

func TestDecodeInsights(t *testing.T) {
	t.Parallel()
	c, _ := newServer(t, jsonHandler(http.StatusOK, `{"data":[
		{"id":"ins_1","platformAdAccountId":"act_991","attributionWindow":"7d_click_1d_view",
		 "campaignId":null,"date":"2026-11-19T00:00:00Z","syncedAt":"2026-11-20T06:00:00Z",
		 "account":{"currency":"EUR","timezone":"Europe/Berlin"},
		 "purchaseMeasurement":"reported_purchase_value","spend":"12.50","ctr":"1.2","cpc":"0.40","cpm":"6.10",
		 "impressions":2049,"reach":1800,"clicks":31,"purchases":2,"purchaseValue":80.0,"roas":6.4},
		{"id":"ins_2","platformAdAccountId":"act_991","attributionWindow":"7d_click",
		 "campaignId":"cmp_1","date":"2026-11-18","syncedAt":null,
		 "account":{"currency":"EUR","timezone":"Europe/Berlin"},
		 "purchaseMeasurement":"unavailable","spend":"0","ctr":"0","cpc":"0","cpm":"0",
		 "impressions":0,"reach":0,"clicks":0,"purchases":null,"purchaseValue":null,"roas":null,
		 "conversions":9},
		{"id":"ins_3","platformAdAccountId":"act_991","attributionWindow":"1d_click",
		 "campaignId":"cmp_1","date":null,"syncedAt":null,
		 "account":{"currency":"EUR","timezone":"Europe/Berlin"},
		 "purchaseMeasurement":"reported_purchase_count","spend":"3","ctr":"0.5","cpc":"1","cpm":"2",
		 "impressions":10,"reach":9,"clicks":1,"purchases":1,"purchaseValue":null,"roas":null}
	],"meta":`+metaJSON+`}`))
	got, err := c.Insights.List(t.Context(), nil)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	eur := AccountRef{Currency: "EUR", Timezone: "Europe/Berlin"}
	want := &InsightPage{
		Data: []Insight{
			{ID: "ins_1", PlatformAdAccountID: "act_991", AttributionWindow: "7d_click_1d_view",
				Date: &Date{2026, time.November, 19}, SyncedAt: ptr(time.Date(2026, 11, 20, 6, 0, 0, 0, time.UTC)),
				Account: eur, PurchaseMeasurement: PurchaseValueReported,
				Spend: "12.50", CTR: "1.2", CPC: "0.40", CPM: "6.10",
				Impressions: 2049, Reach: 1800, Clicks: 31,
				Purchases: ptr(2.0), PurchaseValue: ptr(80.0), ROAS: ptr(6.4)},
			{ID: "ins_2", PlatformAdAccountID: "act_991", AttributionWindow: "7d_click",
				CampaignID: ptr("cmp_1"), Date: &Date{2026, time.November, 18},
				Account: eur, PurchaseMeasurement: PurchaseUnavailable,
				Spend: "0", CTR: "0", CPC: "0", CPM: "0"},
			{ID: "ins_3", PlatformAdAccountID: "act_991", AttributionWindow: "1d_click",
				CampaignID: ptr("cmp_1"), Account: eur, PurchaseMeasurement: PurchaseCountReported,
				Spend: "3", CTR: "0.5", CPC: "1", CPM: "2",
				Impressions: 10, Reach: 9, Clicks: 1, Purchases: ptr(1.0)},
		},
		Meta: wantMeta,
	}
	if got.Response == nil || got.Response.StatusCode != http.StatusOK || got.Response.Meta == nil || got.Response.Meta.DataAsOf != got.Meta.DataAsOf {
		t.Errorf("Response = %+v, want status 200 and the page's meta", got.Response)
	}
	want.Response = got.Response
	if d := diff(want, got); d != "" {
		t.Errorf("List mismatch (path: want, got):\n%s", d)
	}
	if got.Data[0].Level() != LevelAccount || got.Data[1].Level() != LevelCampaign {
		t.Errorf("levels = %q, %q; want account, campaign", got.Data[0].Level(), got.Data[1].Level())
	}
}

func TestDecodeInvalidValues(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"fraction spend":  `{"data":[{"spend":"1/3"}],"meta":{}}`,
		"word spend":      `{"data":[{"spend":"twelve"}],"meta":{}}`,
		"bad date":        `{"data":[{"date":"19/11/2026"}],"meta":{}}`,
		"string clicks":   `{"data":[{"clicks":"31"}],"meta":{}}`,
		"truncated":       `{"data":[{"spend":"1"}`,
		"html":            `<html>maintenance</html>`,
		"empty 200 body":  ``,
		"data not a list": `{"data":{},"meta":{}}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, _ := newServer(t, jsonHandler(http.StatusOK, body))
			_, err := c.Insights.List(t.Context(), nil)
			if err == nil {
				t.Fatalf("List decoded %q without an error", body)
			}
			t.Logf("error: %v", err)
		})
	}
}

// TestRawData: a page keeps each row exactly as the service sent it, for
// printing it unchanged (svc -o json).
func TestRawData(t *testing.T) {
	t.Parallel()
	row := `{"id":"ins_1","date":"2026-11-19T00:00:00Z","purchaseValue":78.450,"extra":"kept"}`
	c, _ := newServer(t, jsonHandler(http.StatusOK, `{"data":[`+row+`],"meta":`+metaJSON+`}`))
	got, err := c.Insights.List(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if raw := got.RawData(); len(raw) != 1 || string(raw[0]) != row {
		t.Errorf("RawData() = %q, want [%s]", raw, row)
	}
	if got.Data[0].Date.String() != "2026-11-19" || *got.Data[0].PurchaseValue != 78.45 {
		t.Errorf("typed row %+v", got.Data[0])
	}
}
