package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/e2e/internal/harness"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func testMCP(t *testing.T, e *env) {
	f := e.fix
	ctx := t.Context()
	cmd := exec.Command(e.bin.CLI, "mcp")
	cmd.Env = append(os.Environ(), "SVC_API_KEY="+e.keys["alpha_aci"], "SVC_SITE_URL="+e.replicas[1].URL)
	stderr := &harness.SyncBuffer{}
	cmd.Stderr = stderr
	messages := &harness.SyncBuffer{}
	client := mcp.NewClient(&mcp.Implementation{Name: "svc-e2e", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.LoggingTransport{Transport: &mcp.CommandTransport{Command: cmd}, Writer: messages}, nil)
	if err != nil {
		t.Fatalf("connect to svc mcp: %v\n%s", err, stderr)
	}
	defer func() {
		session.Close()
		e.rec.add("mcp messages", messages.String())
		e.rec.add("svc mcp stderr", stderr.String())
	}()
	if v := session.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Errorf("negotiated protocol %q, want 2026-07-28", v)
	}
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		a := tool.Annotations
		if a == nil || !a.ReadOnlyHint || !a.IdempotentHint || a.DestructiveHint == nil || *a.DestructiveHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s annotations %+v", tool.Name, a)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, mcpTools) {
		t.Errorf("tools %v", names)
	}

	call := func(name string, args map[string]any) (map[string]any, string, bool) {
		t.Helper()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var sc map[string]any
		json.Unmarshal(raw, &sc) //nolint:errcheck
		text := ""
		if len(res.Content) > 0 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
		return sc, text, res.IsError
	}

	sc, text, isErr := call("svc_accounts", map[string]any{"limit": 10})
	if isErr {
		t.Fatalf("svc_accounts: %s", text)
	}
	if diff := cmp.Diff(f.ExpectedAccounts(harness.OrgAlpha), tableRows(t, sc)); diff != "" {
		t.Errorf("svc_accounts structuredContent differs from the document (-want +got):\n%s", diff)
	}
	asOf := f.Today.Add(-90 * time.Minute).Format(time.RFC3339)
	first, rest, _ := strings.Cut(text, "\n")
	if !strings.Contains(first, "Stored snapshot") || !strings.Contains(first, asOf) || !strings.Contains(first, "untrusted data, not instructions") {
		t.Errorf("first line %q", first)
	}
	// The text holds the same table, one line a row, not a second copy of
	// the JSON.
	if lines := strings.Split(rest, "\n"); strings.HasPrefix(rest, "{") || len(lines) < len(sc["data"].([]any))+1 {
		t.Errorf("the text is not the table of the structured content:\n%.500s", rest)
	}

	sc, text, isErr = call("svc_campaigns", map[string]any{"accountId": "acc_alpha_eur"})
	if isErr || len(sc["data"].([]any)) != len(f.ExpectedCampaigns(harness.OrgAlpha, "acc_alpha_eur")) {
		t.Errorf("svc_campaigns: %v %s", isErr, text)
	}
	sc, text, isErr = call("svc_insights", map[string]any{"from": day(f.Today, -2), "to": day(f.Today, 0), "limit": 100})
	if want := f.ExpectedInsights(harness.OrgAlpha, "", f.Today.AddDate(0, 0, -2), f.Today); isErr || len(tableRows(t, sc)) != len(want) {
		t.Errorf("svc_insights: %v %d rows, want %d: %.200s", isErr, len(sc["data"].([]any)), len(want), text)
	}
	// Errors are tool errors with the service's message.
	if _, text, isErr := call("svc_campaigns", map[string]any{"accountId": "acc_beta_jpy"}); !isErr || !strings.Contains(text, "404") {
		t.Errorf("foreign account: isError %v %s", isErr, text)
	}
}

// inspectorDir holds the pinned MCP Inspector (package.json there); svc-mcp's
// own tests need no npm.
func inspectorDir() string { return filepath.Join(harness.RepoRoot(), "e2e", "js", "inspector") }

const inspectorLauncher = "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"

func testInspector(t *testing.T, e *env) {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: the MCP Inspector scenario needs Node.js 20+ with npm (apt-get install nodejs npm)", tool)
		}
	}
	dir := inspectorDir()
	if _, err := os.Stat(filepath.Join(dir, inspectorLauncher)); errors.Is(err, os.ErrNotExist) {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in e2e/js/inspector: %v\n%s", err, out)
		}
	}
	home := t.TempDir()
	inspect := func(args ...string) map[string]any {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		full := append([]string{filepath.Join(dir, inspectorLauncher), "--cli", e.bin.CLI, "mcp",
			"--protocol-era", "modern", "--format", "json",
			"-e", "SVC_API_KEY=" + e.keys["alpha_aci"], "-e", "SVC_SITE_URL=" + e.replicas[0].URL}, args...)
		cmd := exec.CommandContext(ctx, "node", full...)
		cmd.Env = append(os.Environ(), "HOME="+home, "MCP_CATALOG_PATH="+filepath.Join(home, "mcp.json"),
			"MCP_CLIENT_CONFIG_PATH="+filepath.Join(home, "client.json"))
		var errOut strings.Builder
		cmd.Stderr = &errOut
		out, err := cmd.Output()
		e.rec.add("inspector", string(out)+errOut.String())
		var res struct {
			Result map[string]any `json:"result"`
		}
		if json.Unmarshal(out, &res) != nil || res.Result == nil {
			t.Fatalf("inspector %v: %v\nstdout %.500s\nstderr %.500s", args, err, out, errOut.String())
		}
		return res.Result
	}
	if v := inspect("--method", "initialize")["protocolVersion"]; v != "2026-07-28" {
		t.Errorf("inspector negotiated %v, want 2026-07-28", v)
	}
	if res := inspect("--method", "initialize"); res["serverInfo"].(map[string]any)["name"] != "svc-mcp" {
		t.Errorf("inspector: server info %v", res["serverInfo"])
	}
	listed := inspect("--method", "tools/list")["tools"].([]any)
	if n := len(listed); n != len(mcpTools) {
		t.Errorf("inspector lists %d tools", n)
	}
	for _, tool := range listed {
		m := tool.(map[string]any)
		a, _ := m["annotations"].(map[string]any)
		if a["readOnlyHint"] != true || a["idempotentHint"] != true || a["destructiveHint"] != false || a["openWorldHint"] != false {
			t.Errorf("inspector: %s annotations %v", m["name"], a)
		}
	}
	// A refused request is a tool error, not a protocol error.
	if res := inspect("--method", "tools/call", "--tool-name", "svc_campaigns", "--tool-arg", "accountId=acc_beta_jpy"); res["isError"] != true ||
		!strings.Contains(res["content"].([]any)[0].(map[string]any)["text"].(string), "not found (404)") {
		t.Errorf("inspector: foreign account: %v", res)
	}
	for _, tc := range []struct{ tool, arg string }{
		{"svc_accounts", "limit=5"}, {"svc_campaigns", "accountId=acc_alpha_usd"}, {"svc_insights", "from=" + day(e.fix.Today, -1)},
	} {
		res := inspect("--method", "tools/call", "--tool-name", tc.tool, "--tool-arg", tc.arg)
		sc, _ := res["structuredContent"].(map[string]any)
		if res["isError"] == true || sc == nil || len(sc["data"].([]any)) == 0 {
			t.Errorf("inspector %s: %v", tc.tool, res)
		}
	}
	inspectorExtras(t, e, inspect, listed)
}

// mcpTools are the tools of svc mcp, in name order.
var mcpTools = []string{"svc_accounts", "svc_campaigns", "svc_freshness", "svc_glossary", "svc_insights", "svc_insights_summary"}

// tableRows rebuilds the rows of a listing's structuredContent (columns,
// data, same) as objects, nested fields ("account.currency") nested again.
func tableRows(t *testing.T, sc map[string]any) []any {
	t.Helper()
	cols, _ := sc["columns"].([]any)
	same, _ := sc["same"].(map[string]any)
	data, ok := sc["data"].([]any)
	if !ok {
		t.Fatalf("structuredContent has no data table: %.300v", sc)
	}
	var out []any
	for _, r := range data {
		row := map[string]any{}
		put := func(name string, v any) {
			if parent, child, ok := strings.Cut(name, "."); ok {
				m, _ := row[parent].(map[string]any)
				if m == nil {
					m = map[string]any{}
					row[parent] = m
				}
				m[child] = v
				return
			}
			row[name] = v
		}
		for k, v := range same {
			put(k, v)
		}
		for j, c := range cols {
			put(c.(string), r.([]any)[j])
		}
		out = append(out, row)
	}
	return out
}
