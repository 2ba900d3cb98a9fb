package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/adsnap/svc/e2e/internal/harness"
	"github.com/adsnap/svc/sdk-go/svctest"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"
)

// The insight summaries (issue 34) before svc-api answers them: the clients
// are tested against sdk-go's svctest, so svctest's summaries must be what
// api-server/openapi.yaml describes. These tests hold them to the document
// (kin-openapi, every answer) and to harness.ExpectedSummary, the oracle
// that computes a summary from the listed rows by itself; the server's
// tests are to call the same oracle with the rows svc-api lists.

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
			for _, account := range accounts {
				for _, level := range harness.SummaryLevels {
					for _, groupBy := range harness.SummaryGroupBys {
						q := url.Values{"level": {level}, "groupBy": {groupBy}, "limit": {"7"}}
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
						got := readGroups(t, get, q)
						if diff := cmp.Diff(want, got); diff != "" {
							t.Errorf("%s: svctest differs from the oracle (-oracle +svctest):\n%s", q.Encode(), diff)
						}
						groups += len(got)
					}
				}
			}
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
// period, the level and the grouping. The same against `svc-api demo` is
// for when svc-api has the endpoint (MCPClients).
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
			if diff := cmp.Diff(want, tableRows(t, r.StructuredContent)); diff != "" {
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
