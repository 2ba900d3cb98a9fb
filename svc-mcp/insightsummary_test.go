package svcmcp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/adsnap/svc/sdk-go/svctest"
	"github.com/google/go-cmp/cmp"
)

// summaryAPI is the test API with insight rows of two accounts in two
// currencies, both levels, over two days of two ISO weeks, some without
// purchase evidence.
func summaryAPI(t *testing.T) *testAPI {
	t.Helper()
	api := newTestAPI(t)
	row := func(account, currency, campaign, date, measurement, spend string, imp, clicks int, purchases, value string) svctest.Row {
		c := "null"
		if campaign != "" {
			c = fmt.Sprintf("%q", campaign)
		}
		return svctest.Row{AccountID: account, JSON: fmt.Sprintf(`{"id":"ins_%s_%s_%s","platformAdAccountId":"p_%s","attributionWindow":"7d_click_1d_view",`+
			`"campaignId":%s,"date":"%sT00:00:00Z","syncedAt":null,"account":{"currency":%q,"timezone":"UTC"},"purchaseMeasurement":%q,`+
			`"spend":%q,"ctr":"1","cpc":"1","cpm":"1","impressions":%d,"reach":1,"clicks":%d,"purchases":%s,"purchaseValue":%s,"roas":null}`,
			account, campaign, date, account, c, date, currency, measurement, spend, imp, clicks, purchases, value)}
	}
	api.api.Insights = []svctest.Row{
		row("act_1", "EUR", "", "2026-11-16", "reported_purchase_value", "20.00", 4000, 40, "3", "120.5"),
		row("act_1", "EUR", "cmp_1", "2026-11-16", "reported_purchase_value", "20.00", 4000, 40, "3", "120.5"),
		row("act_1", "EUR", "", "2026-11-15", "unavailable", "12.5", 1000, 10, "null", "null"),
		row("act_1", "EUR", "cmp_1", "2026-11-15", "unavailable", "12.5", 1000, 10, "null", "null"),
		row("act_2", "USD", "", "2026-11-16", "reported_purchase_count", "7.25", 500, 0, "2", "null"),
		row("act_2", "USD", "cmp_2", "2026-11-16", "reported_purchase_count", "7.25", 500, 0, "2", "null"),
	}
	return api
}

func TestInsightSummaryTool(t *testing.T) {
	t.Parallel()
	api := summaryAPI(t)
	cs := connectAPI(t, api)

	// Spend per account last week: one call, one request.
	res := call(t, cs, "svc_insights_summary", map[string]any{"level": "account", "groupBy": "account", "from": "2026-11-13", "to": "2026-11-19"})
	if res.IsError {
		t.Fatalf("error: %s", text(t, res))
	}
	if q := api.lastQuery(); q != "/insights/summary?from=2026-11-13&groupBy=account&level=account&limit=100&to=2026-11-19" {
		t.Errorf("query %s", q)
	}
	var sc listOutput
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &sc); err != nil {
		t.Fatal(err)
	}
	// Columns null in every row (campaignId, the period, the comparison)
	// are left out; the names are there.
	wantCols := []string{"level", "currency", "accountId", "rows", "days", "spend", "impressions", "clicks",
		"ctr", "cpc", "cpm", "purchaseRows", "purchases", "purchaseValueRows", "purchaseValue", "roas", "accountName", "status"}
	if diff := cmp.Diff(wantCols, sc.Columns); diff != "" || !sc.Complete || sc.Cursor != nil || len(sc.Data) != 2 {
		t.Fatalf("columns (-want +got):\n%s\ncomplete %v, %d rows", diff, sc.Complete, len(sc.Data))
	}
	eur, _ := json.Marshal(sc.Data[0])
	if want := `["account","EUR","act_1",2,2,"32.50",5000,50,"1.0000","0.6500","6.5000",1,"3",1,"120.5","6.0250","Acme evil Shop","ACTIVE"]`; string(eur) != want {
		t.Errorf("EUR row %s\nwant     %s", eur, want)
	}
	usd, _ := json.Marshal(sc.Data[1])
	if want := `["account","USD","act_2",1,1,"7.25",500,0,"0.0000",null,"14.5000",1,"2",0,null,null,"Beta \u0026 \u003cCo\u003e","INACTIVE"]`; string(usd) != want {
		t.Errorf("USD row %s\nwant     %s", usd, want)
	}
	// The text states the period, the level and that each row has one
	// currency, then the same rows with their currency and level.
	txt := text(t, res)
	head, table, _ := strings.Cut(txt, "\n")
	for _, phrase := range []string{"period 2026-11-13..2026-11-19 (UTC days), totals of account-level insight rows by account, one currency and one level a row", "untrusted data", "complete"} {
		if !strings.Contains(head, phrase) {
			t.Errorf("first line lacks %q: %s", phrase, head)
		}
	}
	if want := "level\tcurrency\taccountId\trows\tdays\tspend\timpressions\tclicks\tctr\tcpc\tcpm\tpurchaseRows\tpurchases\tpurchaseValueRows\tpurchaseValue\troas\taccountName\tstatus\n" +
		"account\tEUR\tact_1\t2\t2\t32.50\t5000\t50\t1.0000\t0.6500\t6.5000\t1\t3\t1\t120.5\t6.0250\tAcme evil Shop\tACTIVE\n" +
		"account\tUSD\tact_2\t1\t1\t7.25\t500\t0\t0.0000\tnull\t14.5000\t1\t2\t0\tnull\tnull\tBeta & <Co>\tINACTIVE"; table != want {
		t.Errorf("text table:\n%s\nwant\n%s", table, want)
	}

	// Per week at campaign level, a row at a time with the cursor.
	fields := []string{"currency", "periodStart", "periodEnd", "spend", "purchases", "purchaseRows", "rows"}
	res = call(t, cs, "svc_insights_summary", map[string]any{"level": "campaign", "groupBy": "week", "from": "2026-11-13", "to": "2026-11-19", "limit": 1,
		"fields": fields})
	var seen []string
	for i := 0; ; i++ {
		if res.IsError || i > 5 {
			t.Fatalf("call %d: %s", i, text(t, res))
		}
		raw, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(raw, &sc)
		row, _ := json.Marshal(sc.Data)
		seen = append(seen, string(row))
		if sc.Complete {
			break
		}
		res = call(t, cs, "svc_insights_summary", map[string]any{"cursor": *sc.Cursor, "level": "campaign", "limit": 1, "fields": fields})
	}
	// The columns asked for, in the row's order: currency, periodStart,
	// periodEnd, rows, spend, purchaseRows, purchases.
	want := []string{`[["EUR","2026-11-09","2026-11-15",1,"12.5",0,null]]`, `[["EUR","2026-11-16","2026-11-22",1,"20.00",1,"3"]]`, `[["USD","2026-11-16","2026-11-22",1,"7.25",1,"2"]]`}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("weekly rows (-want +got):\n%s", diff)
	}
}

func TestInsightSummaryToolErrors(t *testing.T) {
	t.Parallel()
	api := summaryAPI(t)
	cs := connectAPI(t, api)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "invalid arguments, no request was made: level is required"},
		{map[string]any{"level": "account", "groupBy": "campaign"}, "invalid arguments, no request was made: groupBy campaign needs level campaign"},
		{map[string]any{"level": "both"}, "invalid arguments, no request was made: level"},
		{map[string]any{"cursor": "c1.x", "level": "account", "sort": "-spend"}, "invalid arguments, no request was made: groupBy, sort, top, compareFrom, compareTo, status and having cannot be given with cursor"},
		{map[string]any{"level": "account", "from": "2026-11-21"}, "invalid arguments, no request was made: from 2026-11-21 is in the future"},
	} {
		res := call(t, cs, "svc_insights_summary", tc.args)
		if got := text(t, res); !res.IsError || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%v: %v %s, want an error starting %q", tc.args, res.IsError, got, tc.want)
		}
	}
	if q := api.lastQuery(); q != "" {
		t.Errorf("a request was sent: %s", q)
	}
	// A service without the endpoint: say so, and what to do instead.
	api.respond("/insights/summary", &apiResponse{status: http.StatusNotFound, body: `{"statusCode":404,"message":"` + svctest.MessageNoEndpoint + `"}`})
	res := call(t, cs, "svc_insights_summary", map[string]any{"level": "account"})
	if got := text(t, res); !res.IsError || !strings.Contains(got, "does not offer GET /insights/summary") || !strings.Contains(got, "call svc_insights") || strings.Contains(got, "accountId") {
		t.Errorf("older service: %s", got)
	}
	// With accountId, a 404 is the account's.
	res = call(t, cs, "svc_insights_summary", map[string]any{"level": "account", "accountId": "act_9"})
	if got := text(t, res); !res.IsError || !strings.Contains(got, "not an account of your organization") {
		t.Errorf("unknown account: %s", got)
	}
}

// TestInsightSummaryToolAnswers: the answers' arguments go to the service
// in one request, and the comparison comes back as previous.* and change.*.
func TestInsightSummaryToolAnswers(t *testing.T) {
	t.Parallel()
	api := summaryAPI(t)
	cs := connectAPI(t, api)
	res := call(t, cs, "svc_insights_summary", map[string]any{"level": "campaign", "groupBy": "campaign", "from": "2026-11-16", "to": "2026-11-16",
		"sort": "-spend", "top": 1, "compareFrom": "2026-11-15", "compareTo": "2026-11-15", "having": []string{"impressions>0"},
		"fields": []string{"currency", "campaignId", "spend", "previous.spend", "change.spend", "change.spendRelative"}})
	if res.IsError {
		t.Fatal(text(t, res))
	}
	if q := api.lastQuery(); q != "/insights/summary?compareFrom=2026-11-15&compareTo=2026-11-15&from=2026-11-16&groupBy=campaign&having=impressions%3E0&level=campaign&limit=100&sort=-spend&to=2026-11-16&top=1" {
		t.Errorf("query %s", q)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var sc listOutput
	_ = json.Unmarshal(raw, &sc)
	rows, _ := json.Marshal(sc.Data)
	// svctest sums every row for the current period (it does not filter
	// by date) and the rows of compareFrom..compareTo for the previous one.
	if want := `[["EUR","cmp_1","32.50","12.5","20","1.6000"],["USD","cmp_2","7.25","0","7.25",null]]`; string(rows) != want {
		t.Errorf("rows %s\nwant %s", rows, want)
	}
	if !strings.Contains(text(t, res), "ranked by -spend within each currency") {
		t.Errorf("text %s", text(t, res))
	}
}
