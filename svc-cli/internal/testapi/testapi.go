// Package testapi is a stand-in for the snapshot developer API, for tests:
// sdk-go's svctest (svc-api's statuses, messages and note, checked by e2e)
// over fixed data, with routes that misbehave on purpose. A route is chosen
// by the first element of the path,
// in front of /api/v1/developer, so that a test picks it with the site URL
// (SVC_SITE_URL=$API/slow):
//
//	(none)          the data, paged by limit and offset
//	/old            the data, as a service without GET /insights/summary (404)
//	/demo           14 days of the demo organization of `svc-api demo` (3
//	                accounts in EUR, USD and JPY, both levels, rows without
//	                purchase evidence), as of 2026-11-23; /demo/old: without
//	                GET /insights/summary
//	/pages          120 accounts, campaigns and insights (3 pages by default)
//	/moved          like /pages, but dataAsOf changes after the first page
//	/capped         10,150 rows of one account and one day (accounts too):
//	                past the offset limit, so --all cannot read them all;
//	                /capped/old: without GET /insights/summary
//	/expiring       the data, with a key that expires in 3 days
//	/empty          no rows
//	/nasty          names holding terminal escapes and bidi controls
//	/formulas       names that a spreadsheet would run as formulas (and
//	                one that is a number), for CSV injection
//	/echo           the data, with the query string as dataAsOf
//	/redirect       302 to another host
//	/slow           answers after 3 s (or when the client gives up)
//	/ratelimited    429 with Retry-After: 60
//	/once429/<id>   429 with Retry-After: 0 on the first request for <id>
//	/unavailable    503
//	/forbidden      403
//	/unauthorized   401
//	/notfound       404
package testapi

import (
	_ "embed"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/adsnap/svc/sdk-go/svctest"
)

// Key is a well-formed developer key (its checksum is right) that the
// server accepts.
var Key = svctest.MakeKey("0123456789abcdefghijklmnopqrstuvwxyzA")

// OtherKey is a well-formed key that the server refuses with 401.
var OtherKey = svctest.MakeKey("ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ")

// DataAsOf is the dataAsOf of every page (except on /moved and /echo).
const DataAsOf = "2026-11-20T06:00:00Z"

const (
	generatedAt = "2026-11-20T07:00:00Z"
	apiPath     = "/api/v1/developer/"
)

// Server is a running stand-in API.
type Server struct {
	*httptest.Server

	mu   sync.Mutex
	seen map[string]bool
	// Requests are the request URIs received, in order.
	requests []string
}

// New starts a server; close it with Close.
func New() *Server {
	s := &Server{seen: map[string]bool{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Requests returns the request URIs received so far.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r.URL.RequestURI())
	s.mu.Unlock()

	prefix, resource, ok := strings.Cut(r.URL.Path, apiPath)
	if !ok || strings.Contains(resource, "/") && resource != "insights/summary" && resource != "insights/freshness" {
		svctest.WriteError(w, http.StatusNotFound, svctest.MessageNoEndpoint)
		return
	}
	route := strings.Trim(prefix, "/")
	mode, arg, _ := strings.Cut(route, "/")

	api := svctest.API{Key: Key, Accounts: fixtures.Accounts, Campaigns: fixtures.Campaigns, Insights: fixtures.Insights,
		AccountIDs: []string{"acc_1", "acc_2"}, DataAsOf: DataAsOf, GeneratedAt: generatedAt,
		LastImport: `{"committedAt":"2026-11-20T06:04:12.52Z","upserts":12,"deletes":1,"changedDays":["2026-11-18","2026-11-19"]}`}
	switch mode {
	case "redirect":
		http.Redirect(w, r, "http://elsewhere.example"+r.URL.RequestURI(), http.StatusFound)
		return
	case "slow":
		select {
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
			return
		}
	case "ratelimited":
		w.Header().Set("Retry-After", "60")
		svctest.WriteError(w, http.StatusTooManyRequests, svctest.MessageRateLimitedKey)
		return
	case "once429":
		s.mu.Lock()
		first := !s.seen[arg]
		s.seen[arg] = true
		s.mu.Unlock()
		if first {
			w.Header().Set("Retry-After", "0")
			svctest.WriteError(w, http.StatusTooManyRequests, svctest.MessageRateLimitedKey)
			return
		}
	case "unavailable":
		svctest.WriteError(w, http.StatusServiceUnavailable, svctest.MessageLimiterDown)
		return
	case "forbidden":
		api.Scopes = []string{}
	case "unauthorized":
		api.Key = "" // no key is accepted
	case "notfound":
		svctest.WriteError(w, http.StatusNotFound, svctest.MessageAccountNotFound)
		return
	case "pages", "moved":
		api.Accounts, api.Campaigns, api.Insights = many("accounts", 120), many("campaigns", 120), many("insights", 120)
		if mode == "moved" && r.URL.Query().Get("offset") != "" && r.URL.Query().Get("offset") != "0" {
			api.DataAsOf = "2026-11-20T07:30:00Z"
		}
	case "capped":
		api.Accounts, api.Campaigns, api.Insights = many("accounts", 10150), many("campaigns", 10150), many("insights", 10150)
		api.NoSummary = arg == "old"
	case "expiring":
		w.Header().Set("Api-Key-Expires-At", time.Now().Add(72*time.Hour+time.Minute).UTC().Format(time.RFC3339))
	case "empty":
		api.Accounts, api.Campaigns, api.Insights = nil, nil, nil
	case "nasty":
		api.Accounts, api.Campaigns, api.Insights = nasty, nil, nil
	case "formulas":
		api.Accounts, api.Campaigns, api.Insights = formulaAccounts, formulaCampaigns, nil
	case "echo":
		api.DataAsOf = r.URL.Query().Encode()
	case "old":
		api.NoSummary = true
	case "demo":
		api.Accounts, api.Campaigns, api.Insights, api.AccountIDs = demo.Accounts, demo.Campaigns, demo.Insights, nil
		api.DataAsOf, api.NoSummary = "2026-11-23T18:00:00Z", arg == "old"
	}
	api.ServeHTTP(w, r)
}

// row is a fixture row: its account id and its JSON.
type row = svctest.Row

// fixtures are the rows of the default route; e2e validates them against
// openapi.yaml (double_test.go).
//
//go:embed testdata/fixtures.json
var fixturesJSON []byte

var fixtures = svctest.MustParseFixtures(fixturesJSON)

// demo are the rows of /demo: `svc-api demo`'s organization org_demo_acme
// from 2026-11-10 to 2026-11-23 (its data as of 2026-11-23T18:42:07Z);
// e2e validates them against openapi.yaml and builds the document's summary
// examples from them (summary_test.go).
//
//go:embed testdata/demo.json
var demoJSON []byte

var demo = svctest.MustParseFixtures(demoJSON)

var nasty = []row{
	{AccountID: "acc_1", JSON: `{"id":"acc_1","accountName":"\u001b[31mRED\u001b[0m \u202eevil\u202c","currency":"EUR","timezone":"Europe/Berlin","isActive":true,"lastSyncAt":null}`},
}

// formulaAccounts are accounts whose names and time zones a spreadsheet
// would run as formulas (OWASP's CSV injection), and one whose name is a
// number.
var formulaAccounts = []row{
	{AccountID: "acc_1", JSON: `{"id":"acc_1","accountName":"=HYPERLINK(\"http://x\",\"go\")","currency":"EUR","timezone":"@SUM(1,1)","isActive":true,"lastSyncAt":null}`},
	{AccountID: "acc_2", JSON: `{"id":"acc_2","accountName":"+cmd|' /C calc'!A0","currency":"USD","timezone":"-2+3","isActive":false,"lastSyncAt":null}`},
	{AccountID: "acc_3", JSON: `{"id":"acc_3","accountName":"\tTab","currency":"EUR","timezone":"\rReturn","isActive":true,"lastSyncAt":null}`},
	{AccountID: "acc_4", JSON: `{"id":"acc_4","accountName":"-12.50","currency":"EUR","timezone":"UTC","isActive":true,"lastSyncAt":null}`},
}

// formulaCampaigns is a campaign with a formula for a name and a budget
// that is a negative number (left as it is).
var formulaCampaigns = []row{
	{AccountID: "acc_1", JSON: `{"id":"cmp_1","platformAdAccountId":"act_1","name":"=HYPERLINK(\"http://x\",\"go\")","objective":"@O","status":"ACTIVE","effectiveStatus":null,"dailyBudget":"-12.50","lifetimeBudget":null,"syncedAt":null,"account":{"currency":"EUR","timezone":"UTC"}}`},
}

// manyRows holds the rows many made, by resource and count.
var manyRows sync.Map

// many returns n generated rows of resource, all of account acc_1.
func many(resource string, n int) []row {
	k := fmt.Sprint(resource, n)
	if rows, ok := manyRows.Load(k); ok {
		return rows.([]row)
	}
	rows := make([]row, n)
	for i := range rows {
		var j string
		switch resource {
		case "accounts":
			j = fmt.Sprintf(`{"id":"acc_%03d","accountName":"Account %d","currency":"EUR","timezone":"UTC","isActive":true,"lastSyncAt":null}`, i, i)
		case "campaigns":
			j = fmt.Sprintf(`{"id":"cmp_%03d","platformAdAccountId":"act_1","name":"Campaign %d","objective":"O","status":"ACTIVE","effectiveStatus":null,"dailyBudget":"1.00","lifetimeBudget":null,"syncedAt":null,"account":{"currency":"EUR","timezone":"UTC"}}`, i, i)
		default:
			j = fmt.Sprintf(`{"id":"ins_%03d","platformAdAccountId":"act_1","attributionWindow":"w","campaignId":null,"date":"2026-11-19T00:00:00Z","syncedAt":null,"account":{"currency":"EUR","timezone":"UTC"},"purchaseMeasurement":"reported_purchase_count","spend":"1.25","ctr":"1","cpc":"1","cpm":"1","impressions":10,"reach":5,"clicks":1,"purchases":1,"purchaseValue":null,"roas":null}`, i)
		}
		rows[i] = row{AccountID: "acc_1", JSON: j}
	}
	manyRows.Store(k, rows)
	return rows
}

// Env returns an environment for svc: the key and the site URL of route
// (such as "" or "/pages").
func (s *Server) Env(route string) map[string]string {
	return map[string]string{"SVC_API_KEY": Key, "SVC_SITE_URL": s.URL + route}
}

// Getenv returns a function that reads env, for cmdutil.Factory.Getenv.
func Getenv(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}
