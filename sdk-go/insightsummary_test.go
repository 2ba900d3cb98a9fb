package svc

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func TestSummaryQueryAndDecode(t *testing.T) {
	t.Parallel()
	const body = `{"data":[
		{"level":"campaign","currency":"EUR","accountId":"acc_1","campaignId":"cmp_1","periodStart":"2026-11-09","periodEnd":"2026-11-15",
		 "rows":12,"days":6,"spend":"476.06","impressions":65382,"clicks":1122,"ctr":"1.7161","cpc":"0.4243","cpm":"7.2812",
		 "purchaseRows":10,"purchases":"69","purchaseValueRows":10,"purchaseValue":"4178.01","roas":"10.9748"},
		{"level":"campaign","currency":"JPY","accountId":"acc_2","campaignId":"cmp_2","periodStart":"2026-11-16","periodEnd":"2026-11-22",
		 "rows":2,"days":1,"spend":"0","impressions":0,"clicks":0,"ctr":null,"cpc":null,"cpm":null,
		 "purchaseRows":0,"purchases":null,"purchaseValueRows":0,"purchaseValue":null,"roas":null}],
		"meta":{"source":"stored_snapshot","liveMetaRequest":false,"limit":2,"offset":4,"nextOffset":6,"returned":2,
		"generatedAt":"2026-11-20T07:00:00Z","dataAsOf":"2026-11-20T06:00:00Z","note":"n"}}`
	c, srv := newServer(t, jsonHandler(http.StatusOK, body))
	page, err := c.Insights.Summary(t.Context(), &InsightSummaryOptions{
		ListOptions: ListOptions{Limit: 2, Offset: 4, AccountID: "acc_1"},
		From:        Date{2026, 11, 10}, To: Date{2026, 11, 20}, Level: LevelCampaign, GroupBy: GroupByWeek,
	})
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.requests()
	if len(reqs) != 1 || reqs[0].URL.Path != testAPIPath+"/insights/summary" ||
		reqs[0].URL.RawQuery != "accountId=acc_1&from=2026-11-10&groupBy=week&level=campaign&limit=2&offset=4&to=2026-11-20" {
		t.Fatalf("requests %v", reqs)
	}
	want := []InsightSummaryGroup{
		{Level: LevelCampaign, Currency: "EUR", AccountID: ptr("acc_1"), CampaignID: ptr("cmp_1"),
			PeriodStart: &Date{2026, 11, 9}, PeriodEnd: &Date{2026, 11, 15}, Rows: 12, Days: 6, Spend: "476.06",
			Impressions: 65382, Clicks: 1122, CTR: ptr(Decimal("1.7161")), CPC: ptr(Decimal("0.4243")), CPM: ptr(Decimal("7.2812")),
			PurchaseRows: 10, Purchases: ptr(Decimal("69")), PurchaseValueRows: 10, PurchaseValue: ptr(Decimal("4178.01")), ROAS: ptr(Decimal("10.9748"))},
		{Level: LevelCampaign, Currency: "JPY", AccountID: ptr("acc_2"), CampaignID: ptr("cmp_2"),
			PeriodStart: &Date{2026, 11, 16}, PeriodEnd: &Date{2026, 11, 22}, Rows: 2, Days: 1, Spend: "0"},
	}
	if d := diff(want, page.Data); d != "" {
		t.Errorf("groups (path: want, got):\n%s", d)
	}
	if page.Meta.NextOffset == nil || *page.Meta.NextOffset != 6 || page.Response.Meta == nil || len(page.RawData()) != 2 {
		t.Errorf("meta %+v, response %+v", page.Meta, page.Response)
	}
	// The typed group encodes back to the wire form: same fields, same values.
	var wire, back []map[string]any
	var env struct{ Data json.RawMessage }
	_ = json.Unmarshal([]byte(body), &env)
	_ = json.Unmarshal(env.Data, &wire)
	raw, _ := json.Marshal(page.Data)
	_ = json.Unmarshal(raw, &back)
	if d := diff(wire, back); d != "" {
		t.Errorf("re-encoded groups differ from the wire (path: want, got):\n%s", d)
	}
}

func TestSummaryValidation(t *testing.T) {
	t.Parallel()
	c, srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request sent: %s", r.URL)
	})
	for _, tc := range []struct {
		opts *InsightSummaryOptions
		want string
	}{
		{nil, "level is required: account or campaign (the two levels overlap and are never totalled together)"},
		{&InsightSummaryOptions{Level: "both"}, `level must be account or campaign, not "both"`},
		{&InsightSummaryOptions{Level: LevelAccount, GroupBy: "year"}, `groupBy must be one of total, account, campaign, day, week, month, account,day, campaign,day, not "year"`},
		{&InsightSummaryOptions{Level: LevelAccount, GroupBy: GroupByCampaign}, "groupBy campaign needs level campaign: account-level rows have no campaign"},
		{&InsightSummaryOptions{Level: LevelAccount, ListOptions: ListOptions{Limit: 101}, From: Date{2026, 11, 21}},
			"limit must be between 1 and 100, not 101; from 2026-11-21 is in the future (today is 2026-11-20 UTC)"},
	} {
		_, err := c.Insights.Summary(t.Context(), tc.opts)
		verr, ok := errors.AsType[*ValidationError](err)
		if !ok || strings.Join(verr.Problems, "; ") != tc.want {
			t.Errorf("%+v: error %v, want %q", tc.opts, err, tc.want)
		}
		for _, err := range c.Insights.SummaryAll(t.Context(), tc.opts) {
			if !errors.As(err, &verr) {
				t.Errorf("%+v: SummaryAll error %v, want a validation error", tc.opts, err)
			}
		}
	}
	if _, err := c.Insights.Summary(t.Context(), &InsightSummaryOptions{Level: LevelAccount, From: Date{2026, 11, 21}}); !errors.Is(err, ErrFutureDate) {
		t.Errorf("future date: %v does not match ErrFutureDate", err)
	}
	if n := len(srv.requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// summaryAPI serves the campaign groups of accounts (n each, interleaving
// currencies so that the service's order, currency first, differs from the
// order by account) with the service's paging and offset limit, and the
// accounts.
type summaryAPI struct {
	t        *testing.T
	accounts []string
	groups   []InsightSummaryGroup // in the service's order
	raw      []json.RawMessage     // groups as JSON
	mu       sync.Mutex
	requests []string
}

func newSummaryAPI(t *testing.T, perAccount map[string]int, currency map[string]string) *summaryAPI {
	a := &summaryAPI{t: t}
	for acc := range perAccount {
		a.accounts = append(a.accounts, acc)
	}
	slices.Sort(a.accounts)
	for _, acc := range a.accounts {
		for i := range perAccount[acc] {
			a.groups = append(a.groups, InsightSummaryGroup{Level: LevelCampaign, Currency: currency[acc],
				AccountID: ptr(acc), CampaignID: ptr(fmt.Sprintf("cmp_%05d", i)), Rows: 1, Days: 1, Spend: "1"})
		}
	}
	slices.SortFunc(a.groups, compareGroups)
	for _, g := range a.groups {
		b, _ := json.Marshal(g)
		a.raw = append(a.raw, b)
	}
	return a
}

func (a *summaryAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.requests = append(a.requests, r.URL.RequestURI())
	a.mu.Unlock()
	q := r.URL.Query()
	limit, offset := 50, 0
	if v := q.Get("limit"); v != "" {
		limit, _ = strconv.Atoi(v)
	}
	if v := q.Get("offset"); v != "" {
		offset, _ = strconv.Atoi(v)
	}
	var all []json.RawMessage
	switch r.URL.Path {
	case "/accounts":
		for _, id := range a.accounts {
			all = append(all, json.RawMessage(fmt.Sprintf(`{"id":%q}`, id)))
		}
	case "/insights/summary":
		for i, g := range a.groups {
			if acc := q.Get("accountId"); acc == "" || *g.AccountID == acc {
				all = append(all, a.raw[i])
			}
		}
	default:
		a.t.Errorf("path %s", r.URL.Path)
	}
	data := all[min(offset, len(all)):min(offset+limit, len(all))]
	var next *int
	if n := offset + len(data); n < len(all) && n <= MaxOffset {
		next = &n
	}
	b, _ := json.Marshal(map[string]any{"data": data, "meta": Meta{Source: "stored_snapshot", Limit: limit, Offset: offset,
		NextOffset: next, Returned: len(data), DataAsOf: "2026-11-20T06:00:00Z"}})
	w.Write(b)
}

func groupKeys(t *testing.T, seq func(func(InsightSummaryGroup, error) bool)) ([]string, error) {
	t.Helper()
	var keys []string
	for g, err := range seq {
		if err != nil {
			return keys, err
		}
		keys = append(keys, g.Currency+"/"+*g.AccountID+"/"+*g.CampaignID)
	}
	return keys, nil
}

func TestSummaryAllFollowsPages(t *testing.T) {
	t.Parallel()
	api := newSummaryAPI(t, map[string]int{"acc_a": 120, "acc_b": 30}, map[string]string{"acc_a": "USD", "acc_b": "EUR"})
	c, _ := newServer(t, api.ServeHTTP)
	got, err := groupKeys(t, c.Insights.SummaryAll(t.Context(), &InsightSummaryOptions{Level: LevelCampaign, GroupBy: GroupByCampaign}))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 150 || got[0] != "EUR/acc_b/cmp_00000" || got[149] != "USD/acc_a/cmp_00119" {
		t.Errorf("%d groups, first %v, last %v", len(got), got[:1], got[len(got)-1:])
	}
	if want := []string{"/insights/summary?groupBy=campaign&level=campaign&limit=100",
		"/insights/summary?groupBy=campaign&level=campaign&limit=100&offset=100"}; !slices.Equal(api.requests, want) {
		t.Errorf("requests %q, want %q", api.requests, want)
	}
}

func TestSummaryAllReadsPerAccountPastTheLimit(t *testing.T) {
	t.Parallel()
	// 10,250 campaign groups: the service's order (EUR first) stops at the
	// limit inside acc_c; the rest is read per account, none twice.
	per := map[string]int{"acc_a": 4000, "acc_b": 2250, "acc_c": 4000}
	api := newSummaryAPI(t, per, map[string]string{"acc_a": "USD", "acc_b": "JPY", "acc_c": "EUR"})
	c, _ := newServer(t, api.ServeHTTP)
	got, err := groupKeys(t, c.Insights.SummaryAll(t.Context(), &InsightSummaryOptions{Level: LevelCampaign, GroupBy: GroupByCampaign}))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, g := range api.groups {
		want = append(want, g.Currency+"/"+*g.AccountID+"/"+*g.CampaignID)
	}
	if len(got) != len(want) {
		t.Fatalf("%d groups, want %d", len(got), len(want))
	}
	if !slices.Equal(got[:MaxOffset+MaxLimit], want[:MaxOffset+MaxLimit]) {
		t.Error("the first 10,100 groups are not the service's order")
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Error("groups lost or repeated")
	}

	// Day groups past the limit: no split reaches them.
	_, err = groupKeys(t, c.Insights.SummaryAll(t.Context(), &InsightSummaryOptions{Level: LevelCampaign, GroupBy: GroupByDay}))
	if inc, ok := errors.AsType[*IncompleteError](err); !ok || !errors.Is(err, ErrIncomplete) || inc.Rows != MaxOffset+MaxLimit {
		t.Errorf("day groups past the limit: %v", err)
	}
}

func TestSummaryPacingAndRetries(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		calls := 0
		c := newFakeClient(t, func(r *http.Request) (*http.Response, error) {
			calls++
			if calls == 1 {
				return response(r, http.StatusTooManyRequests, http.Header{"Retry-After": {"60"}}, `{"statusCode":429,"message":"rate limited"}`), nil
			}
			if calls == 2 {
				return response(r, http.StatusServiceUnavailable, nil, `{"statusCode":503,"message":"unavailable"}`), nil
			}
			return response(r, http.StatusOK, http.Header{"Ratelimit-Policy": {`"key";q=60;w=60`}, "Ratelimit": {`"key";r=0;t=1`}},
				`{"data":[{"level":"account","currency":"EUR","rows":1,"days":1,"spend":"1"}],"meta":{"limit":100,"offset":0,"nextOffset":null,"returned":1,"dataAsOf":"s"}}`), nil
		}, withJitter(time.Second), withRetryBase(time.Second))
		opts := &InsightSummaryOptions{Level: LevelAccount}
		// One page: a 429 is the caller's, as for List.
		if _, err := c.Insights.Summary(t.Context(), opts); !IsRateLimited(err) {
			t.Fatalf("Summary: %v, want a 429", err)
		}
		// The 503 is retried; the answer's rate limit paces the next request.
		page, err := c.Insights.Summary(t.Context(), opts)
		if err != nil || len(page.Data) != 1 || page.Response.RateLimits[0].Remaining != 0 || calls != 3 {
			t.Fatalf("Summary: %v %+v after %d requests", err, page, calls)
		}
		start := time.Now()
		if _, err := c.Insights.Summary(t.Context(), opts); err != nil || time.Since(start) != time.Second {
			t.Errorf("paced request after %s: %v", time.Since(start), err)
		}
		// SummaryAll waits on a 429 and goes on, as the other iterators do.
		calls = 2
		c2 := newFakeClient(t, func(r *http.Request) (*http.Response, error) {
			calls++
			if calls == 3 {
				return response(r, http.StatusTooManyRequests, http.Header{"Retry-After": {"60"}}, `{"statusCode":429,"message":"rate limited"}`), nil
			}
			return response(r, http.StatusOK, nil, `{"data":[{"level":"account","currency":"EUR","rows":1,"days":1,"spend":"1"}],"meta":{"limit":100,"offset":0,"nextOffset":null,"returned":1,"dataAsOf":"s"}}`), nil
		}, withJitter(0))
		n := 0
		for _, err := range c2.Insights.SummaryAll(t.Context(), opts) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != 1 || calls != 4 {
			t.Errorf("%d groups after %d requests", n, calls)
		}
	})
}

// TestSummaryAnswersQuery: the answers go on the query as the service reads
// them, and their problems are refused before any request.
func TestSummaryAnswersQuery(t *testing.T) {
	today := Date{Year: 2026, Month: 11, Day: 21}
	o := InsightSummaryOptions{Level: LevelCampaign, GroupBy: GroupByCampaign, SummaryAnswers: SummaryAnswers{
		Sort: "-spend", Top: 5, CompareFrom: Date{Year: 2026, Month: 10, Day: 1}, CompareTo: Date{Year: 2026, Month: 10, Day: 21},
		Status: []string{"PAUSED", "ARCHIVED"}, Having: []string{"clicks=0", "impressions>0"}}}
	q, err := o.query(today)
	if err != nil {
		t.Fatal(err)
	}
	if got := q.Encode(); got != "compareFrom=2026-10-01&compareTo=2026-10-21&groupBy=campaign&having=clicks%3D0%2Cimpressions%3E0&level=campaign&sort=-spend&status=PAUSED%2CARCHIVED&top=5" {
		t.Errorf("query %s", got)
	}
	bad := InsightSummaryOptions{Level: LevelAccount, SummaryAnswers: SummaryAnswers{Sort: "name", Top: 5000,
		CompareFrom: today, Having: []string{"clicks==0"}}}
	_, err = bad.query(today)
	var v *ValidationError
	if !errors.As(err, &v) || len(v.Problems) != 4 {
		t.Fatalf("%v", err)
	}
}
