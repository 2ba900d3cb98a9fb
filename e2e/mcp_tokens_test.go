package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsnap/svc/e2e/internal/harness"
	"github.com/adsnap/svc/sdk-go/svctest"
)

// The token usage of `svc mcp`'s results, as a host that forwards both the
// text content and structuredContent to its model pays it, counted by
// e2e/js/mcp/session.mjs with a pinned tokenizer (gpt-tokenizer 4.0.0,
// o200k_base; see that file for why). TestMCPTokenUsage fails when a
// result grows by more than tokenTolerance over testdata/mcp-tokens.json;
// UPDATE_TOKENS=1 rewrites the file after an intended change (review the
// diff: a growth is a cost to every user).

const (
	tokenTolerance = 0.05
	tokensFile     = "testdata/mcp-tokens.json"
)

// tokenRecord is testdata/mcp-tokens.json.
type tokenRecord struct {
	Tokenizer string `json:"tokenizer"`
	// Before are the figures of a 100-row svc_insights page on `svc-api
	// demo` with the code before issue 33 (ad7805a), measured with the same
	// client and tokenizer: the ceiling of TestMCPHosts is half of them.
	Before struct {
		TextBytes       int `json:"textBytes"`
		StructuredBytes int `json:"structuredBytes"`
		Tokens          int `json:"tokens"`
	} `json:"before100RowInsightsPage"`
	// Results are the tokens of each result of tokenCalls on the fixed
	// fixtures, by name.
	Results map[string]int `json:"results"`
}

func readTokenRecord(t *testing.T) tokenRecord {
	t.Helper()
	raw, err := os.ReadFile(tokensFile)
	if err != nil {
		t.Fatal(err)
	}
	var r tokenRecord
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%s: %v", tokensFile, err)
	}
	return r
}

// tokenGrowth compares measured figures with the recorded ones: every
// result recorded must be measured and be at most tolerance above its
// record, and every result measured must be recorded.
func tokenGrowth(recorded, measured map[string]int, tolerance float64) []string {
	var problems []string
	for name, want := range recorded {
		got, ok := measured[name]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s: recorded (%d tokens) but not measured", name, want))
		case float64(got) > float64(want)*(1+tolerance):
			problems = append(problems, fmt.Sprintf("%s: %d tokens, %.1f%% over the recorded %d (at most %.0f%% allowed)",
				name, got, 100*(float64(got)/float64(want)-1), want, 100*tolerance))
		}
	}
	for name := range measured {
		if _, ok := recorded[name]; !ok {
			problems = append(problems, fmt.Sprintf("%s: measured but not recorded", name))
		}
	}
	slices.Sort(problems)
	return problems
}

func TestTokenGrowth(t *testing.T) {
	t.Parallel()
	rec := map[string]int{"a": 1000, "b": 200}
	for _, tc := range []struct {
		measured map[string]int
		fails    bool
	}{
		{map[string]int{"a": 1000, "b": 200}, false},
		{map[string]int{"a": 1050, "b": 150}, false}, // 5 % is allowed, shrinking too
		{map[string]int{"a": 1060, "b": 200}, true},  // 6 % is not
		{map[string]int{"a": 1000, "b": 213}, true},
		{map[string]int{"a": 1000}, true},
		{map[string]int{"a": 1000, "b": 200, "c": 1}, true},
	} {
		if got := tokenGrowth(rec, tc.measured, tokenTolerance); (len(got) > 0) != tc.fails {
			t.Errorf("%v: problems %v, want failure %v", tc.measured, got, tc.fails)
		}
	}
}

// tokenFixtures are the fixed rows of the token test: three accounts in three
// currencies, two campaigns each, and for each day of 2026-11-01..2026-11-20
// one account-level and two campaign-level rows per account (180 rows).
func tokenFixtures() (accounts, campaigns, insights []svctest.Row) {
	type acct struct{ id, name, currency, tz, platform string }
	accts := []acct{
		{"acc_eu", "Acme Europe", "EUR", "Europe/Berlin", "act_100200300"},
		{"acc_us", "Acme US", "USD", "America/New_York", "act_100200301"},
		{"acc_jp", "Acme Japan", "JPY", "Asia/Tokyo", "act_100200302"},
	}
	for i, a := range accts {
		accounts = append(accounts, svctest.Row{AccountID: a.id, JSON: fmt.Sprintf(
			`{"id":%q,"accountName":%q,"currency":%q,"timezone":%q,"isActive":true,"lastSyncAt":"2026-11-20T06:00:00Z"}`, a.id, a.name, a.currency, a.tz)})
		for c := 1; c <= 2; c++ {
			campaigns = append(campaigns, svctest.Row{AccountID: a.id, JSON: fmt.Sprintf(
				`{"id":"cmp_%s_%d","platformAdAccountId":%q,"name":"%s campaign %d","objective":"OUTCOME_SALES","status":"ACTIVE","effectiveStatus":"ACTIVE","dailyBudget":"%d.00","lifetimeBudget":null,"syncedAt":"2026-11-20T05:59:00Z","account":{"currency":%q,"timezone":%q}}`,
				a.id, c, a.platform, a.name, c, 20*(i+1)+c, a.currency, a.tz)})
		}
	}
	for day := 20; day >= 1; day-- {
		for i, a := range accts {
			for c := 0; c <= 2; c++ {
				id, campaign := fmt.Sprintf("ins_%s_2026-11-%02d", a.id, day), "null"
				if c > 0 {
					id, campaign = fmt.Sprintf("ins_%s_%d_2026-11-%02d", a.id, c, day), fmt.Sprintf(`"cmp_%s_%d"`, a.id, c)
				}
				n := day*37 + i*11 + c*5
				measurement, purchases := "unavailable", `null,"purchaseValue":null,"roas":null`
				if i == 0 {
					measurement, purchases = "reported_purchase_value", fmt.Sprintf(`%d,"purchaseValue":%d.5,"roas":%d.25`, n%7, n%90, n%5)
				}
				insights = append(insights, svctest.Row{AccountID: a.id, JSON: fmt.Sprintf(
					`{"id":%q,"platformAdAccountId":%q,"attributionWindow":"7d_click_1d_view","campaignId":%s,"date":"2026-11-%02dT00:00:00Z","syncedAt":"2026-11-20T06:00:00Z","account":{"currency":%q,"timezone":%q},"purchaseMeasurement":%q,"spend":"%d.%02d","ctr":"1.%02d","cpc":"0.%02d","cpm":"%d.%02d","impressions":%d,"reach":%d,"clicks":%d,"purchases":%s}`,
					id, a.platform, campaign, day, a.currency, a.tz, measurement, 10+n%80, n%100, n%97, 20+n%70, 3+n%6, n%100, 4000+n*13, 3000+n*9, 40+n%150, purchases)})
			}
		}
	}
	return accounts, campaigns, insights
}

// tokenCalls are the results the token test measures, by name.
var tokenCalls = []struct {
	name string
	tool string
	args map[string]any
}{
	{"svc_accounts default", "svc_accounts", map[string]any{}},
	{"svc_campaigns default", "svc_campaigns", map[string]any{}},
	{"svc_insights default", "svc_insights", map[string]any{"from": "2026-11-01", "to": "2026-11-20"}},
	{"svc_insights 100 rows", "svc_insights", map[string]any{"from": "2026-11-01", "to": "2026-11-20", "limit": 100}},
	{"svc_insights 100 rows, fields", "svc_insights", map[string]any{"from": "2026-11-01", "to": "2026-11-20", "limit": 100,
		"fields": []string{"date", "campaignId", "account.currency", "spend", "impressions", "clicks", "purchases", "purchaseValue"}}},
	{"svc_glossary", "svc_glossary", map[string]any{}},
	{"svc_insights_summary per account", "svc_insights_summary", map[string]any{"level": "account", "groupBy": "account", "from": "2026-11-14", "to": "2026-11-20"}},
	{"svc_insights_summary per day", "svc_insights_summary", map[string]any{"level": "campaign", "groupBy": "day", "from": "2026-11-01", "to": "2026-11-20"}},
}

// sessionResult is what e2e/js/mcp/session.mjs prints.
type sessionResult struct {
	ProtocolVersion string           `json:"protocolVersion"`
	Era             string           `json:"era"`
	Server          map[string]any   `json:"server"`
	Tools           []map[string]any `json:"tools"`
	Resources       []map[string]any `json:"resources"`
	Prompts         []map[string]any `json:"prompts"`
	// ListTokens are the o200k tokens of the whole JSON result of each list.
	ListTokens struct {
		Tools     int `json:"tools"`
		Resources int `json:"resources"`
		Prompts   int `json:"prompts"`
	} `json:"listTokens"`
	Reads []struct {
		URI      string `json:"uri"`
		Error    string `json:"error"`
		Contents []struct {
			Text string `json:"text"`
		} `json:"contents"`
		TTLMs      *int    `json:"ttlMs"`
		CacheScope *string `json:"cacheScope"`
	} `json:"reads"`
	PromptResults []struct {
		Name     string           `json:"name"`
		Error    string           `json:"error"`
		Messages []map[string]any `json:"messages"`
	} `json:"promptResults"`
	Results []struct {
		Tool              string         `json:"tool"`
		Error             string         `json:"error"`
		IsError           bool           `json:"isError"`
		Text              string         `json:"text"`
		StructuredContent map[string]any `json:"structuredContent"`
		TextBytes         int            `json:"textBytes"`
		StructuredBytes   int            `json:"structuredBytes"`
		Tokens            int            `json:"tokens"`
	} `json:"results"`
}

// mcpJSDir holds the pinned TypeScript client and tokenizer.
func mcpJSDir() string { return filepath.Join(harness.RepoRoot(), "e2e", "js", "mcp") }

var mcpJSOnce sync.Once

// runSession installs e2e/js/mcp once (npm ci) and runs session.mjs with
// input.
func runSession(t *testing.T, input map[string]any) sessionResult {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: the MCP client scenarios need Node.js 20+ with npm (apt-get install nodejs npm)", tool)
		}
	}
	dir := mcpJSDir()
	var installErr error
	mcpJSOnce.Do(func() {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json")); errors.Is(err, os.ErrNotExist) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				installErr = fmt.Errorf("npm ci in e2e/js/mcp: %v\n%s", err, out)
			}
		}
	})
	if installErr != nil {
		t.Fatal(installErr)
	}
	in := filepath.Join(t.TempDir(), "session.json")
	raw, _ := json.Marshal(input)
	if err := os.WriteFile(in, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(dir, "session.mjs"), in)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var res sessionResult
	if err != nil || json.Unmarshal(out, &res) != nil {
		t.Fatalf("session.mjs: %v\nstdout %.1000s\nstderr %.2000s", err, out, stderr.String())
	}
	return res
}

// TestMCPTokenUsage measures every result of tokenCalls on fixed fixtures
// (served by sdk-go's svctest, as svc-api answers) through the built `svc
// mcp` and the TypeScript client at 2026-07-28, and compares them with
// testdata/mcp-tokens.json.
func TestMCPTokenUsage(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "svc")
	build := exec.Command("go", "build", "-o", bin, "./cmd/svc")
	build.Dir = filepath.Join(harness.RepoRoot(), "svc-cli")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build svc: %v\n%s", err, out)
	}
	const key = "svc_live_00000000000000000000000000000000000001w1XY4"
	accounts, campaigns, insights := tokenFixtures()
	api := httptest.NewServer(&svctest.API{Key: key, Accounts: accounts, Campaigns: campaigns, Insights: insights,
		DataAsOf: "2026-11-20T06:00:00Z", GeneratedAt: "2026-11-20T06:05:00Z"})
	defer api.Close()

	var calls []map[string]any
	for _, c := range tokenCalls {
		calls = append(calls, map[string]any{"tool": c.tool, "arguments": c.args})
	}
	res := runSession(t, map[string]any{
		"command": bin, "args": []string{"mcp"}, "era": "modern", "calls": calls,
		"env": map[string]string{"SVC_API_KEY": key, "SVC_SITE_URL": api.URL, "PATH": os.Getenv("PATH"), "HOME": t.TempDir()},
	})
	measured := map[string]int{}
	for i, r := range res.Results {
		if r.Error != "" || r.IsError {
			t.Fatalf("%s: %s %s", tokenCalls[i].name, r.Error, r.Text)
		}
		measured[tokenCalls[i].name] = r.Tokens
		t.Logf("%-32s %6d tokens (text %6d bytes, structuredContent %6d bytes)", tokenCalls[i].name, r.Tokens, r.TextBytes, r.StructuredBytes)
		if r.Tokens > 8000 && !strings.Contains(tokenCalls[i].name, "100 rows") && tokenCalls[i].tool != "svc_glossary" {
			t.Errorf("%s: %d tokens; a call without limit must stay under about 8,000", tokenCalls[i].name, r.Tokens)
		}
	}
	rec := readTokenRecord(t)
	if os.Getenv("UPDATE_TOKENS") == "1" {
		rec.Tokenizer = "gpt-tokenizer 4.0.0 o200k_base (e2e/js/mcp/package-lock.json); tokens = text content + JSON of structuredContent"
		rec.Results = measured
		raw, _ := json.MarshalIndent(rec, "", "  ")
		if err := os.WriteFile(tokensFile, append(raw, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, p := range tokenGrowth(rec.Results, measured, tokenTolerance) {
		t.Errorf("%s; if intended, run UPDATE_TOKENS=1 go test -run TestMCPTokenUsage ./... in e2e and review the diff of %s", p, tokensFile)
	}
}
