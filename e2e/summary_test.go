package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/e2e/internal/harness"
	"github.com/adsnap/svc/sdk-go/svctest"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"
)

// The insight summaries (issue 34). The clients are tested against sdk-go's
// svctest, so svctest's summaries must be what api-server/openapi.yaml
// describes: the first tests hold them to the document (kin-openapi, every
// answer) and to harness.ExpectedSummary, the oracle that computes a summary
// from the listed rows by itself. TestSummaryServer holds svc-api to the
// same oracle with the rows svc-api lists, on SQLite and PostgreSQL, and
// runs the CLI and the MCP tool against it.

// summaryFixtures are the fixture files the clients' tests serve with
// svctest: the double's fixtures and the demo's rows of svc-cli's test.
var summaryFixtures = append(slices.Clone(doubleFixtures), "svc-cli/internal/testapi/testdata/demo.json")

// summaryRows are the insight rows of fixtures as the oracle takes them.
func summaryRows(f svctest.Fixtures) []harness.SummaryRow {
	var rows []harness.SummaryRow
	for _, r := range f.Insights {
		rows = append(rows, harness.SummaryRow{AccountID: r.AccountID, JSON: json.RawMessage(r.JSON)})
	}
	return rows
}

func readFixtures(t *testing.T, file string) svctest.Fixtures {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(harness.RepoRoot(), file))
	if err != nil {
		t.Fatal(err)
	}
	f, err := svctest.ParseFixtures(b)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestSummaryDoubleMatchesContract reads every summary (each level and
// grouping, for the organization and for each account, 7 groups a page
// through nextOffset) from svctest over each fixture file: every answer
// validates against openapi.yaml, and the groups equal the oracle's.
func TestSummaryDoubleMatchesContract(t *testing.T) {
	t.Parallel()
	const key = "svc_live_00000000000000000000000000000000000001w1XY4"
	for _, file := range summaryFixtures {
		t.Run(filepath.Base(filepath.Dir(file))+"/"+filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			f := readFixtures(t, file)
			srv := httptest.NewServer(&svctest.API{Key: key, Accounts: f.Accounts, Campaigns: f.Campaigns, Insights: f.Insights,
				DataAsOf: "2026-11-20T06:00:00Z", GeneratedAt: "2026-11-20T07:00:00Z"})
			defer srv.Close()
			contract, err := harness.LoadContract(t.Context(), []string{srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			get := func(q url.Values) (int, []byte) {
				t.Helper()
				resp, body, err := harness.Get(t.Context(), http.DefaultClient, srv.URL+"/api/v1/developer/insights/summary?"+q.Encode(), key)
				if err != nil {
					t.Fatal(err)
				}
				if err := contract.Check(t.Context(), resp, body); err != nil {
					t.Error(err)
				}
				return resp.StatusCode, body
			}
			accounts := []string{""}
			for _, a := range f.Accounts {
				accounts = append(accounts, a.AccountID)
			}
			rows := summaryRows(f)
			groups := 0
			forEachSummaryCase(t, accounts, rows, url.Values{"limit": {"7"}}, get, func(q url.Values, level string, want []any) {
				got := readGroups(t, get, q)
				if diff := cmp.Diff(want, withoutAnswers(got)); diff != "" {
					t.Errorf("%s: svctest differs from the oracle (-oracle +svctest):\n%s", q.Encode(), diff)
				}
				groups += len(got)
			})
			if groups == 0 {
				t.Fatal("no group in any summary: the test would prove nothing")
			}
			for _, q := range []url.Values{{}, {"level": {"all"}}, {"level": {"account"}, "groupBy": {"year"}}, {"level": {"account"}, "bogus": {"1"}}} {
				if status, body := get(q); status != http.StatusBadRequest {
					t.Errorf("%s: %d %s, want 400", q.Encode(), status, body)
				}
			}
		})
	}
}

// readGroups follows nextOffset from offset 0 and returns every group,
// checking the paging fields of each page.
func readGroups(t *testing.T, get func(url.Values) (int, []byte), q url.Values) []any {
	t.Helper()
	groups := []any{}
	for offset := 0; ; {
		q.Set("offset", fmt.Sprint(offset))
		status, body := get(q)
		if status != http.StatusOK {
			t.Fatalf("%s: %d %s", q.Encode(), status, body)
		}
		var env envelope
		if err := json.Unmarshal(body, &env); err != nil {
			t.Fatal(err)
		}
		groups = append(groups, env.Data...)
		m := env.Meta
		if m["offset"] != float64(offset) || m["returned"] != float64(len(env.Data)) {
			t.Errorf("%s: meta %v", q.Encode(), m)
		}
		if m["nextOffset"] == nil {
			return groups
		}
		offset = int(m["nextOffset"].(float64))
	}
}

// TestSummaryExamplesAreTheDemos: the examples of openapi.yaml are what the
// oracle computes from the demo's rows (svc-cli's demo fixtures, 14 days of
// `svc-api demo` as of 2026-11-23), for the requests their summaries name.
func TestSummaryExamplesAreTheDemos(t *testing.T) {
	t.Parallel()
	doc, err := (&openapi3.Loader{Context: t.Context()}).LoadFromFile(filepath.Join(harness.RepoRoot(), "api-server", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	f := readFixtures(t, "svc-cli/internal/testapi/testdata/demo.json")
	for name, tc := range map[string]struct {
		level, groupBy, account, from, to string
		limit                             int
	}{
		"InsightSummaryTotal": {"account", "total", "", "2026-11-17", "2026-11-23", 50},
		"InsightSummaryWeek":  {"campaign", "week", "acc_demo_eu", "2026-11-10", "2026-11-23", 2},
	} {
		var rows []harness.SummaryRow
		for _, r := range summaryRows(f) {
			var d struct{ Date string }
			_ = json.Unmarshal(r.JSON, &d)
			if day := d.Date[:10]; day >= tc.from && day <= tc.to && (tc.account == "" || r.AccountID == tc.account) {
				rows = append(rows, r)
			}
		}
		want, err := harness.ExpectedSummary(rows, tc.level, tc.groupBy)
		if err != nil {
			t.Fatal(err)
		}
		want = want[:min(tc.limit, len(want))]
		ex := doc.Components.Examples[name]
		if ex == nil || ex.Value == nil {
			t.Fatalf("no example %s", name)
		}
		raw, _ := json.Marshal(ex.Value.Value)
		var got envelope
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got.Data); diff != "" {
			t.Errorf("example %s differs from the demo's rows (-oracle +example):\n%s", name, diff)
		}
	}
}

// TestMCPSummaryBothEras asks the built `svc mcp`, through the official
// TypeScript client in both protocol eras (2026-07-28 and the legacy
// initialize), for "spend per account last week" over the token test's
// fixtures served by svctest: one call answers it completely, its
// structuredContent validates against the tool's output schema (Ajv in the
// client, and ours), its rows are the oracle's, and its text states the
// period, the level and the grouping. The same against `svc-api demo`:
// TestSummaryServer (summaryMCP).
func TestMCPSummaryBothEras(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "svc")
	build := exec.Command("go", "build", "-o", bin, "./cmd/svc")
	build.Dir = filepath.Join(harness.RepoRoot(), "svc-cli")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build svc: %v\n%s", err, out)
	}
	const key = "svc_live_00000000000000000000000000000000000001w1XY4"
	accounts, campaigns, insights := tokenFixtures()
	// svctest does not filter rows by date: it serves the week's rows only.
	var week []harness.SummaryRow
	var weekRows []svctest.Row
	for _, r := range insights {
		var d struct{ Date string }
		_ = json.Unmarshal([]byte(r.JSON), &d)
		if day := d.Date[:10]; day >= "2026-11-14" && day <= "2026-11-20" {
			week = append(week, harness.SummaryRow{AccountID: r.AccountID, JSON: json.RawMessage(r.JSON)})
			weekRows = append(weekRows, r)
		}
	}
	api := httptest.NewServer(&svctest.API{Key: key, Accounts: accounts, Campaigns: campaigns, Insights: weekRows,
		DataAsOf: "2026-11-20T06:00:00Z", GeneratedAt: "2026-11-20T06:05:00Z"})
	defer api.Close()
	want, err := harness.ExpectedSummary(week, "account", "account")
	if err != nil || len(want) != 3 {
		t.Fatalf("oracle: %d groups, %v", len(want), err)
	}
	args := map[string]any{"level": "account", "groupBy": "account", "from": "2026-11-14", "to": "2026-11-20"}
	for _, era := range []string{"modern", "legacy"} {
		t.Run(era, func(t *testing.T) {
			res := runSession(t, map[string]any{
				"command": bin, "args": []string{"mcp"}, "era": era,
				"calls": []map[string]any{{"tool": "svc_insights_summary", "arguments": args}},
				"env":   map[string]string{"SVC_API_KEY": key, "SVC_SITE_URL": api.URL, "PATH": os.Getenv("PATH"), "HOME": t.TempDir()},
			})
			if len(res.Results) != 1 || res.Results[0].Error != "" || res.Results[0].IsError {
				t.Fatalf("results %+v", res.Results)
			}
			r := res.Results[0]
			if err := validateOutput(t, toolByName(res.Tools, "svc_insights_summary"), r.StructuredContent); err != nil {
				t.Errorf("structuredContent does not match the output schema: %v", err)
			}
			if r.StructuredContent["complete"] != true {
				t.Errorf("one call does not answer it: complete %v", r.StructuredContent["complete"])
			}
			if diff := cmp.Diff(want, withoutAnswers(tableRows(t, r.StructuredContent))); diff != "" {
				t.Errorf("rows differ from the oracle's (-oracle +tool):\n%s", diff)
			}
			head, table, _ := strings.Cut(r.Text, "\n")
			if !strings.Contains(head, "period 2026-11-14..2026-11-20 (UTC days), totals of account-level insight rows by account, one currency and one level a row") {
				t.Errorf("first line: %s", head)
			}
			for _, c := range []string{"EUR", "USD", "JPY"} {
				if !strings.Contains("\n"+table, "\n"+c+"\t") && !strings.Contains(table, "currency="+c) {
					t.Errorf("the text does not state %s:\n%s", c, table)
				}
			}
		})
	}
}

// summaryDemo is `svc-api demo` (its built-in data: two organizations,
// accounts in EUR, USD and JPY among others, account- and campaign-level
// rows, rows without purchase evidence) on one database, its limits raised
// so that reading every row and every summary is not refused.
type summaryDemo struct {
	backend, url, key string
	dbURL             string // the demo's database, for keys-admin
	bins              harness.Binaries
}

// startSummaryDemos starts the demo on SQLite (its default) and on a fresh
// PostgreSQL database.
func startSummaryDemos(t *testing.T) []summaryDemo {
	t.Helper()
	bins, err := binaries()
	if err != nil {
		t.Fatal(err)
	}
	pg, drop, err := harness.FreshDatabase(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(drop)
	var demos []summaryDemo
	for _, backend := range []string{"sqlite", "postgres"} {
		port, err := harness.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		dataDir := t.TempDir()
		dbURL := "sqlite:" + filepath.Join(dataDir, "demo.db")
		args := []string{"demo", "--data-dir", dataDir, "--listen", fmt.Sprintf("127.0.0.1:%d", port),
			"--limit-key-per-minute", "1000000", "--limit-org-per-minute", "1000000", "--limit-ip-per-minute", "1000000"}
		if backend == "postgres" {
			args = append(args, "--database-url", pg)
			dbURL = pg
		}
		srv, err := harness.StartServer(bins.API, port, nil, args...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := srv.Stop(); err != nil {
				t.Errorf("demo on %s: %v\n%s", backend, err, srv.Logs)
			}
		})
		var key string
		if !harness.Eventually(t.Context(), 20*time.Second, 50*time.Millisecond, func() bool {
			key = demoKeyRE.FindString(srv.Logs.String())
			return key != ""
		}) {
			t.Fatalf("the demo on %s printed no key:\n%s", backend, srv.Logs)
		}
		demos = append(demos, summaryDemo{backend: backend, url: srv.URL, key: key, dbURL: dbURL, bins: bins})
	}
	return demos
}

// get sends GET base_url+path with the demo's key and returns the status
// and the body.
func (d summaryDemo) get(t *testing.T, path string) (int, []byte) {
	t.Helper()
	resp, body, err := harness.Get(t.Context(), http.DefaultClient, d.url+"/api/v1/developer"+path, d.key)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp.StatusCode, body
}

// listAll reads every page of a list (path, and its query without limit
// and offset) and returns its rows.
func (d summaryDemo) listAll(t *testing.T, path string, q url.Values) []json.RawMessage {
	t.Helper()
	var rows []json.RawMessage
	for offset := 0; ; {
		q.Set("limit", "100")
		q.Set("offset", fmt.Sprint(offset))
		status, body := d.get(t, path+"?"+q.Encode())
		if status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, status, body)
		}
		var page struct {
			Data []json.RawMessage
			Meta struct{ NextOffset *int }
		}
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, page.Data...)
		if page.Meta.NextOffset == nil {
			return rows
		}
		offset = *page.Meta.NextOffset
	}
}

// TestSummaryServer: on SQLite and PostgreSQL, GET /insights/summary of
// svc-api (the demo's data, the longest window: 90 days) equals, for every
// level and grouping, for the organization and for each of its accounts,
// what harness.ExpectedSummary computes from every row GET /insights lists
// for the same window (each row labelled with the account whose accountId
// filter lists it); every answer validates against openapi.yaml; paging the
// groups 7 at a time through nextOffset gives the same groups as one page
// of 100, none lost or repeated; every item has one level (the one asked
// for) and one currency (its accounts'); the data has what the rules are
// about (three currencies at both levels, yen without decimals, rows
// without purchase evidence). The errors of the summary's query are
// svctest's, status and message, and the SPEC's statuses.
func TestSummaryServer(t *testing.T) {
	t.Parallel()
	for _, d := range startSummaryDemos(t) {
		t.Run(d.backend, func(t *testing.T) {
			t.Parallel()
			contract, err := harness.LoadContract(t.Context(), []string{d.url})
			if err != nil {
				t.Fatal(err)
			}
			get := func(q url.Values) (int, []byte) {
				t.Helper()
				resp, body, err := harness.Get(t.Context(), http.DefaultClient, d.url+"/api/v1/developer/insights/summary?"+q.Encode(), d.key)
				if err != nil {
					t.Fatal(err)
				}
				if err := contract.Check(t.Context(), resp, body); err != nil {
					t.Errorf("%s: %v", q.Encode(), err)
				}
				return resp.StatusCode, body
			}
			to := today()
			from := to.AddDate(0, 0, -89)
			window := url.Values{"from": {from.Format(time.DateOnly)}, "to": {to.Format(time.DateOnly)}}
			currencyOf := map[string]string{}
			accounts := []string{""}
			for _, raw := range d.listAll(t, "/accounts", url.Values{}) {
				var a struct{ ID, Currency string }
				if err := json.Unmarshal(raw, &a); err != nil {
					t.Fatal(err)
				}
				accounts = append(accounts, a.ID)
				currencyOf[a.ID] = a.Currency
			}
			// Every row of the window, labelled with its account; the
			// organization's listing holds the same rows.
			var rows []harness.SummaryRow
			for _, a := range accounts[1:] {
				q := url.Values{"from": window["from"], "to": window["to"], "accountId": {a}}
				for _, raw := range d.listAll(t, "/insights", q) {
					rows = append(rows, harness.SummaryRow{AccountID: a, JSON: raw})
				}
			}
			if all := d.listAll(t, "/insights", url.Values{"from": window["from"], "to": window["to"]}); len(all) != len(rows) || len(rows) < 500 {
				t.Fatalf("%d rows listed for the organization, %d per account", len(all), len(rows))
			}
			groups := 0
			forEachSummaryCase(t, accounts, rows, url.Values{"from": window["from"], "to": window["to"]}, get, func(q url.Values, level string, want []any) {
				q.Set("limit", "100")
				got := readGroups(t, get, q)
				if diff := cmp.Diff(want, withoutAnswers(got)); diff != "" {
					t.Errorf("%s: svc-api differs from the oracle (-oracle +svc-api):\n%s", q.Encode(), diff)
				}
				q.Set("limit", "7")
				if paged := readGroups(t, get, q); !cmp.Equal(got, paged) {
					t.Errorf("%s: pages of 7 groups differ from pages of 100:\n%s", q.Encode(), cmp.Diff(got, paged))
				}
				for _, g := range got {
					item := g.(map[string]any)
					if item["level"] != level {
						t.Errorf("%s: an item of level %v", q.Encode(), item["level"])
					}
					if a, ok := item["accountId"].(string); ok && currencyOf[a] != item["currency"] {
						t.Errorf("%s: account %s (%s) in an item of %v", q.Encode(), a, currencyOf[a], item["currency"])
					}
				}
				groups += len(got)
			})
			// What the rules are about is in the data.
			q := url.Values{"level": {"campaign"}, "from": window["from"], "to": window["to"]}
			_, body := get(q)
			q.Set("level", "account")
			_, body2 := get(q)
			var camp, acct envelope
			if json.Unmarshal(body, &camp) != nil || json.Unmarshal(body2, &acct) != nil || len(camp.Data) < 2 || len(acct.Data) < 2 {
				t.Fatalf("totals: %s %s", body, body2)
			}
			unavailable, yen := false, false
			for _, g := range append(camp.Data, acct.Data...) {
				item := g.(map[string]any)
				if item["purchaseRows"].(float64) < item["rows"].(float64) {
					unavailable = true
				}
				if item["currency"] == "JPY" {
					yen = !strings.Contains(item["spend"].(string), ".")
				}
			}
			if !unavailable || !yen || groups < 500 {
				t.Errorf("the data lacks rows without purchase evidence (%v) or yen without decimals (%v), or few groups (%d)", unavailable, yen, groups)
			}
			summaryErrors(t, d, accounts[1:])
			t.Run("CLI", func(t *testing.T) { summaryCLI(t, d) })
			t.Run("MCP", func(t *testing.T) { summaryMCP(t, d, rows) })
		})
	}
}

// summaryErrors sends the summary's bad requests to svc-api and to svctest
// (over the same accounts and key): the status and the body are the same,
// and the status is the SPEC's.
func summaryErrors(t *testing.T, d summaryDemo, accounts []string) {
	t.Helper()
	var ids []svctest.Row
	for _, a := range accounts {
		ids = append(ids, svctest.Row{AccountID: a, JSON: "{}"})
	}
	double := httptest.NewServer(&svctest.API{Key: d.key, Accounts: ids})
	defer double.Close()
	tomorrow := today().AddDate(0, 0, 1).Format(time.DateOnly)
	for q, status := range map[string]int{
		"":                                             http.StatusBadRequest,
		"level=both&groupBy=year":                      http.StatusBadRequest,
		"level=account&groupBy=campaign":               http.StatusBadRequest,
		"level=account&foo=1&from=2026-13":             http.StatusBadRequest,
		"level=account&level=campaign":                 http.StatusBadRequest,
		"level=campaign&limit=101&offset=-1":           http.StatusBadRequest,
		"level=campaign&from=" + tomorrow:              http.StatusBadRequest,
		"level=campaign&from=2026-01-01&to=2026-04-01": http.StatusBadRequest,
		"level=account&accountId=acc_nowhere":          http.StatusNotFound,
		"level=account&accountId=acc_demo_uk":          http.StatusNotFound, // the other demo organization's
		"level=account&accountId=bad%20id":             http.StatusBadRequest,
	} {
		var bodies [2]any
		for i, base := range []string{d.url, double.URL} {
			resp, body, err := harness.Get(t.Context(), http.DefaultClient, base+"/api/v1/developer/insights/summary?"+q, d.key)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != status {
				t.Errorf("%s from %s: %d %s, want %d", q, base, resp.StatusCode, body, status)
			}
			if err := json.Unmarshal(body, &bodies[i]); err != nil {
				t.Fatalf("%s from %s: %v %s", q, base, err, body)
			}
		}
		if !cmp.Equal(bodies[0], bodies[1]) {
			t.Errorf("%s: svc-api answers %s, svctest %s", q, bodies[0], bodies[1])
		}
	}
	// A key without insights:read (403), created with keys-admin.
	out, errOut, code, err := harness.Run(t.Context(), d.bins.KeysAdmin, nil, "", "create", "--database-url", d.dbURL,
		"--org", "org_demo_acme", "--user", "u_demo_acme_owner", "--scopes", "accounts:read,campaigns:read",
		"--expires-in-days", "1", "--name", "no insights")
	if err != nil || code != 0 {
		t.Fatalf("keys-admin create: exit %d %v\n%s", code, err, errOut)
	}
	noInsights := strings.TrimSpace(out)
	resp, body, err := harness.Get(t.Context(), http.DefaultClient, d.url+"/api/v1/developer/insights/summary?level=account", noInsights)
	var msg struct{ Message string }
	if err != nil || resp.StatusCode != http.StatusForbidden || json.Unmarshal(body, &msg) != nil || msg.Message != svctest.MessageMissingScope("insights:read") {
		t.Errorf("a key without insights:read: %v %v %s", resp, err, body)
	}
	// The key: missing (401); the method: read-only (405); a credential in
	// the query (400).
	for _, tc := range []struct {
		method, query, key string
		status             int
	}{
		{http.MethodGet, "level=account", "", http.StatusUnauthorized},
		{http.MethodPost, "level=account", d.key, http.StatusMethodNotAllowed},
		{http.MethodGet, "level=account&api_key=x", d.key, http.StatusBadRequest},
		{http.MethodGet, "level=account&organizationId=org_demo_globex", d.key, http.StatusBadRequest},
	} {
		req, _ := http.NewRequestWithContext(t.Context(), tc.method, d.url+"/api/v1/developer/insights/summary?"+tc.query, nil)
		if tc.key != "" {
			req.Header.Set("Authorization", "Bearer "+tc.key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s ?%s: %d, want %d", tc.method, tc.query, resp.StatusCode, tc.status)
		}
	}
}

// summaryCLI: `svc insights --summary` through the endpoint gives, per
// currency and level, the rows, spend, impressions and clicks that the
// client-side code of 95c3747 gives (svc's fallback, taken here through a
// proxy that answers 404 to GET /insights/summary, as a svc-api before
// issue 34 does) over the same rows of the last 30 days; the output says
// which way it went.
func summaryCLI(t *testing.T, d summaryDemo) {
	target, err := url.Parse(d.url)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	old := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/insights/summary") {
			svctest.WriteError(w, http.StatusNotFound, svctest.MessageNoEndpoint)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer old.Close()
	type figures struct {
		Currency, Level, Spend string
		Rows                   int
		Impressions, Clicks    int64
	}
	run := func(site string) ([]figures, string) {
		env := []string{"SVC_SITE_URL=" + site, "SVC_API_KEY=" + d.key, "NO_COLOR=1", "HOME=" + t.TempDir()}
		out, errOut, code, err := harness.Run(t.Context(), d.bins.CLI, env, "", "insights", "--summary", "-o", "json")
		if err != nil || code != 0 {
			t.Fatalf("svc insights --summary at %s: exit %d %v\n%s", site, code, err, errOut)
		}
		var f []figures
		if err := json.Unmarshal([]byte(out), &f); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return f, errOut
	}
	endpoint, errEndpoint := run(d.url)
	client, errClient := run(old.URL)
	if len(endpoint) != 6 {
		t.Fatalf("%d groups through the endpoint, want 3 currencies × 2 levels: %+v", len(endpoint), endpoint)
	}
	if diff := cmp.Diff(client, endpoint); diff != "" {
		t.Errorf("the endpoint's figures differ from the client-side totals (-client +endpoint):\n%s", diff)
	}
	if strings.Contains(errEndpoint, "does not offer GET /insights/summary") || !strings.Contains(errClient, "does not offer GET /insights/summary") {
		t.Errorf("stderr through the endpoint %q, through the old service %q", errEndpoint, errClient)
	}
}

// summaryMCP: the MCP tool svc_insights_summary answers "spend per account
// last week" (the last whole ISO week) from the demo in one call, in both
// protocol eras of the TypeScript client: its structuredContent validates
// against the tool's output schema and holds the oracle's groups, computed
// from the listed rows of that week, and its text states the period, the
// level and every currency.
func summaryMCP(t *testing.T, d summaryDemo, rows []harness.SummaryRow) {
	monday := today().AddDate(0, 0, -((int(today().Weekday())+6)%7)-7)
	from, to := monday.Format(time.DateOnly), monday.AddDate(0, 0, 6).Format(time.DateOnly)
	var week []harness.SummaryRow
	for _, r := range rows {
		var row struct{ Date string }
		if err := json.Unmarshal(r.JSON, &row); err != nil {
			t.Fatal(err)
		}
		if day := row.Date[:10]; day >= from && day <= to {
			week = append(week, r)
		}
	}
	want, err := harness.ExpectedSummary(week, "account", "account")
	if err != nil || len(want) < 2 {
		t.Fatalf("oracle: %d groups, %v", len(want), err)
	}
	args := map[string]any{"level": "account", "groupBy": "account", "from": from, "to": to}
	for _, era := range []string{"modern", "legacy"} {
		t.Run(era, func(t *testing.T) {
			res := runSession(t, map[string]any{
				"command": d.bins.CLI, "args": []string{"mcp"}, "era": era,
				"calls": []map[string]any{{"tool": "svc_insights_summary", "arguments": args}},
				"env":   map[string]string{"SVC_API_KEY": d.key, "SVC_SITE_URL": d.url, "PATH": os.Getenv("PATH"), "HOME": t.TempDir()},
			})
			if len(res.Results) != 1 || res.Results[0].Error != "" || res.Results[0].IsError {
				t.Fatalf("results %+v", res.Results)
			}
			r := res.Results[0]
			if err := validateOutput(t, toolByName(res.Tools, "svc_insights_summary"), r.StructuredContent); err != nil {
				t.Errorf("structuredContent does not match the output schema: %v", err)
			}
			if r.StructuredContent["complete"] != true {
				t.Errorf("one call does not answer it: complete %v", r.StructuredContent["complete"])
			}
			if diff := cmp.Diff(want, withoutAnswers(tableRows(t, r.StructuredContent))); diff != "" {
				t.Errorf("rows differ from the oracle's (-oracle +tool):\n%s", diff)
			}
			head, table, _ := strings.Cut(r.Text, "\n")
			if !strings.Contains(head, "period "+from+".."+to+" (UTC days), totals of account-level insight rows by account, one currency and one level a row") {
				t.Errorf("first line: %s", head)
			}
			for _, g := range want {
				c := g.(map[string]any)["currency"].(string)
				if !strings.Contains("\n"+table, "\n"+c+"\t") && !strings.Contains(table, "currency="+c) {
					t.Errorf("the text does not state %s:\n%s", c, table)
				}
			}
		})
	}
}

// forEachSummaryCase runs check for every account ("" for the whole
// organization), level and groupBy, with base's parameters and the oracle's
// groups over the rows of that account; a groupBy of campaign at the account
// level must be refused with 400 instead.
func forEachSummaryCase(t *testing.T, accounts []string, rows []harness.SummaryRow, base url.Values,
	get func(url.Values) (int, []byte), check func(q url.Values, level string, want []any)) {
	t.Helper()
	for _, account := range accounts {
		for _, level := range harness.SummaryLevels {
			for _, groupBy := range harness.SummaryGroupBys {
				q := maps.Clone(base)
				q.Set("level", level)
				q.Set("groupBy", groupBy)
				if account != "" {
					q.Set("accountId", account)
				}
				if groupBy == "campaign" && level == "account" {
					if status, body := get(q); status != http.StatusBadRequest {
						t.Errorf("%s: %d %s, want 400", q.Encode(), status, body)
					}
					continue
				}
				var mine []harness.SummaryRow
				for _, r := range rows {
					if account == "" || r.AccountID == account {
						mine = append(mine, r)
					}
				}
				want, err := harness.ExpectedSummary(mine, level, groupBy)
				if err != nil {
					t.Fatal(err)
				}
				check(q, level, want)
			}
		}
	}
}
