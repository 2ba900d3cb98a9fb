package svcmcp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/adsnap/svc/sdk-go/svctest"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestCell(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   any
		want string
	}{
		{nil, "null"},
		{"null", `"null"`},
		{"", `""`},
		{`"quoted"`, `"\"quoted\""`},
		{"Winter, EU", "Winter, EU"},
		{json.Number("12.50"), "12.50"},
		{true, "true"},
		{"Beta & <Co>", "Beta & <Co>"},
	} {
		if got := cell(tc.in); got != tc.want {
			t.Errorf("cell(%#v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// manyInsights are n insight rows of one account and attribution window,
// two levels a day, as the API sends them.
func manyInsights(n int) []svctest.Row {
	rows := make([]svctest.Row, n)
	for i := range rows {
		campaign := `"cmp_1"`
		if i%2 == 1 {
			campaign = "null"
		}
		rows[i] = svctest.Row{AccountID: "act_1", JSON: fmt.Sprintf(`{"id":"ins_%03d","platformAdAccountId":"1234567890","attributionWindow":"7d_click_1d_view","campaignId":%s,"date":"2026-11-%02dT00:00:00Z","syncedAt":"2026-11-20T06:00:00Z","account":{"currency":"EUR","timezone":"Europe/Berlin"},"purchaseMeasurement":"unavailable","spend":"%d.50","ctr":"1.00","cpc":"0.50","cpm":"5.00","impressions":%d,"reach":%d,"clicks":%d,"purchases":null,"purchaseValue":null,"roas":null}`,
			i, campaign, 19-i/2%19, i, 1000+i, 900+i, 10+i)}
	}
	return rows
}

// TestSameAndFields: columns with one value in every row are given once,
// in same and on the "Same in every row" line; fields keeps the columns
// asked for, in the row's order; the rows read back whole from both
// channels.
func TestSameAndFields(t *testing.T) {
	t.Parallel()
	api := newTestAPI(t)
	api.api.Insights = manyInsights(6)
	cs := connectAPI(t, api)

	res := call(t, cs, "svc_insights", map[string]any{"limit": 6})
	sc := structured(t, res)
	wantSame := map[string]any{
		"platformAdAccountId": "1234567890", "attributionWindow": "7d_click_1d_view", "syncedAt": "2026-11-20T06:00:00Z",
		"account.currency": "EUR", "account.timezone": "Europe/Berlin", "purchaseMeasurement": "unavailable",
		"ctr": "1.00", "cpc": "0.50", "cpm": "5.00", "purchases": nil, "purchaseValue": nil, "roas": nil,
	}
	want := wantRows(t, "svc_insights", jsonArray(api.api.Insights))
	// A column the rows here do not carry is null in every row: the same.
	for _, c := range toolColumns(t, "svc_insights") {
		if _, ok := wantSame[c]; !ok && !strings.Contains(jsonArray(api.api.Insights), `"`+strings.TrimPrefix(c, "account.")+`"`) {
			wantSame[c] = nil
		}
	}
	if diff := cmp.Diff(wantSame, sc["same"]); diff != "" {
		t.Errorf("same (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, rowsOf(t, sc)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	_, fromText := textRows(t, text(t, res))
	if diff := cmp.Diff(asCells(want), fromText); diff != "" {
		t.Errorf("rows in text (-want +got):\n%s", diff)
	}
	if !strings.Contains(text(t, res), "\nSame in every row: platformAdAccountId=1234567890, attributionWindow=7d_click_1d_view, syncedAt=2026-11-20T06:00:00Z, account.currency=EUR, ") {
		t.Errorf("text:\n%s", text(t, res))
	}

	res = call(t, cs, "svc_insights", map[string]any{"limit": 6, "fields": []string{"spend", "date", "campaignId"}})
	sc = structured(t, res)
	if diff := cmp.Diff([]any{"campaignId", "date", "spend"}, sc["columns"]); diff != "" {
		t.Errorf("columns with fields (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{}, sc["same"]); diff != "" {
		t.Errorf("same with fields: %v", sc["same"])
	}
	if got := sc["data"].([]any)[1]; !cmp.Equal(got, []any{nil, "2026-11-19", "1.50"}) {
		t.Errorf("second row %v", got)
	}
	if lines := strings.Split(text(t, res), "\n"); len(lines) != 8 || lines[1] != "campaignId\tdate\tspend" || lines[2] != "cmp_1\t2026-11-19\t0.50" {
		t.Errorf("text with fields:\n%s", text(t, res))
	}

	res = call(t, cs, "svc_insights", map[string]any{"fields": []string{"nope"}})
	if !res.IsError || !strings.Contains(text(t, res), "nope") {
		t.Errorf("unknown field: %v %s", res.IsError, text(t, res))
	}
}

// TestRowBudget: without limit, a call stops before the rows would take more
// than rowBudgetBytes, and the cursor goes on exactly there; with limit, the
// call returns limit rows whatever their size.
func TestRowBudget(t *testing.T) {
	t.Parallel()
	api := newTestAPI(t)
	long := strings.Repeat("Long campaign name ", 40) // 760 bytes a row
	for i := range 60 {
		api.api.Campaigns = append(api.api.Campaigns, svctest.Row{AccountID: "act_1", JSON: fmt.Sprintf(
			`{"id":"cmp_x%02d","platformAdAccountId":"1","name":"%s%d","objective":"O","status":"ACTIVE","effectiveStatus":null,"dailyBudget":null,"lifetimeBudget":null,"syncedAt":null,"account":{"currency":"EUR","timezone":"UTC"}}`, i, long, i)})
	}
	cs := connectAPI(t, api)
	total := len(api.api.Campaigns)
	seen := 0
	args := map[string]any{}
	for calls := 1; ; calls++ {
		res := call(t, cs, "svc_campaigns", args)
		sc := structured(t, res)
		n := len(sc["data"].([]any))
		if n == 0 || n >= defaultRows {
			t.Fatalf("call %d returned %d rows, want fewer than %d", calls, n, defaultRows)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		if size := len(raw) + len(text(t, res)); size > rowBudgetBytes+4000 {
			t.Errorf("call %d: %d bytes in both channels", calls, size)
		}
		if first := rowsOf(t, sc)[0]["id"]; first != fmt.Sprintf("%v", idAt(api, seen)) {
			t.Errorf("call %d starts at %v, want row %d (%v)", calls, first, seen, idAt(api, seen))
		}
		seen += n
		if sc["complete"] == true {
			break
		}
		args = map[string]any{"cursor": sc["cursor"]}
	}
	if seen != total {
		t.Errorf("read %d rows, want %d", seen, total)
	}
	res := call(t, cs, "svc_campaigns", map[string]any{"limit": 60})
	if n := len(structured(t, res)["data"].([]any)); n != 60 {
		t.Errorf("limit 60: %d rows", n)
	}
}

func idAt(api *testAPI, i int) any {
	var m map[string]any
	_ = json.Unmarshal([]byte(api.api.Campaigns[i].JSON), &m)
	return m["id"]
}

// TestResourcesAndPrompts: the glossary names every column of every
// listing and the rules; freshness reads the snapshot's dataAsOf and
// newest day; both are tools too; the cache hints and the prompts.
func TestResourcesAndPrompts(t *testing.T) {
	t.Parallel()
	api := newTestAPI(t)
	cs := connectAPI(t, api)
	ctx := t.Context()

	init := cs.InitializeResult()
	if si := init.ServerInfo; si.WebsiteURL != api.siteURL()+"/developers/" || len(si.Icons) == 0 || si.Title == "" {
		t.Errorf("server info %+v", si)
	}
	resources, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range resources.Resources {
		uris = append(uris, r.URI)
	}
	if !cmp.Equal(uris, []string{"svc://freshness", "svc://glossary"}) {
		t.Errorf("resources %v", uris)
	}
	if resources.TTLMs != listTTL || resources.CacheScope != "public" {
		t.Errorf("resources/list cache %d %s", resources.TTLMs, resources.CacheScope)
	}
	g, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "svc://glossary"})
	if err != nil {
		t.Fatal(err)
	}
	if g.TTLMs != glossaryTTL || g.CacheScope != "public" {
		t.Errorf("glossary cache %d %s", g.TTLMs, g.CacheScope)
	}
	glossary := g.Contents[0].Text
	for _, e := range registered {
		for _, c := range e.columns {
			if !strings.Contains(glossary, "- **"+c.name+"** (") {
				t.Errorf("glossary lacks %s of %s", c.name, e.name)
			}
		}
	}
	for _, phrase := range []string{"reach does not add", "Never average", "purchaseMeasurement", "Levels overlap", "Currencies", "unknown, not zero", "ctr = clicks / impressions × 100"} {
		if !strings.Contains(glossary, phrase) {
			t.Errorf("glossary lacks %q", phrase)
		}
	}
	if got := text(t, call(t, cs, "svc_glossary", nil)); got != glossary {
		t.Error("svc_glossary differs from the resource")
	}

	f, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "svc://freshness"})
	if err != nil {
		t.Fatal(err)
	}
	if f.CacheScope != "private" || f.TTLMs != freshnessTTL {
		t.Errorf("freshness cache %d %s", f.TTLMs, f.CacheScope)
	}
	want := `{"source":"stored_snapshot","dataAsOf":"2026-11-20T06:00:00Z","today":"2026-11-20","newestInsightDay":"2026-11-19","earliestFrom":"2026-08-23","defaultPeriod":"2026-10-22..2026-11-20","maxDays":90,"lastImportAt":null,"changedDays":null}`
	if f.Contents[0].Text != want {
		t.Errorf("freshness %s\nwant %s", f.Contents[0].Text, want)
	}
	api.mu.Lock()
	reads := slices.Clone(api.queries[len(api.queries)-2:])
	api.mu.Unlock()
	if !slices.Equal(reads, []string{"/insights?from=2026-08-23&limit=1&to=2026-11-20", "/insights/freshness?"}) {
		t.Errorf("freshness reads %q", reads)
	}
	res := call(t, cs, "svc_freshness", nil)
	if sc := structured(t, res); sc["newestInsightDay"] != "2026-11-19" || !strings.Contains(text(t, res), "data as of 2026-11-20T06:00:00Z") {
		t.Errorf("svc_freshness: %v %s", sc, text(t, res))
	}
	// A service with GET /insights/freshness (issue 46): the last import
	// and the days it changed.
	api.mu.Lock()
	api.api.LastImport = `{"committedAt":"2026-11-20T06:01:02Z","upserts":12,"deletes":0,"changedDays":["2026-11-18","2026-11-19"]}`
	api.mu.Unlock()
	res = call(t, cs, "svc_freshness", nil)
	if sc := structured(t, res); sc["lastImportAt"] != "2026-11-20T06:01:02Z" || fmt.Sprint(sc["changedDays"]) != "[2026-11-18 2026-11-19]" ||
		!strings.Contains(text(t, res), "Last import committed at 2026-11-20T06:01:02Z; it changed 2 days (provisional, may be restated): 2026-11-18, 2026-11-19.") {
		t.Errorf("svc_freshness with the last import: %v %s", sc, text(t, res))
	}

	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(prompts.Prompts) != 2 {
		t.Fatalf("prompts %v", prompts.Prompts)
	}
	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "weekly-performance-review", Arguments: map[string]string{"accountId": "act_1"}})
	if err != nil {
		t.Fatal(err)
	}
	body := p.Messages[0].Content.(*mcp.TextContent).Text
	for _, phrase := range []string{`svc_insights_summary with {"from": "2026-11-13", "to": "2026-11-19", "accountId": "act_1", "level": "account", "groupBy": "account"}`,
		`{"from": "2026-11-06", "to": "2026-11-12", "accountId": "act_1", "level": "campaign", "groupBy": "campaign"}`, "svc_glossary", "svc_freshness", "never average", "purchaseRows"} {
		if !strings.Contains(body, phrase) {
			t.Errorf("weekly review lacks %q:\n%s", phrase, body)
		}
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "compare-periods", Arguments: map[string]string{"firstFrom": "x"}}); err == nil || !strings.Contains(err.Error(), "firstFrom") {
		t.Errorf("compare-periods with a bad date: %v", err)
	}
}
