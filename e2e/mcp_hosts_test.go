package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// validateOutput validates a tool's structuredContent against the tool's
// outputSchema, as listed by the server, with a JSON Schema validator of
// our own (the TypeScript client validates too, with Ajv).
func validateOutput(t *testing.T, tool map[string]any, structured any) error {
	t.Helper()
	schemaJSON, err := json.Marshal(tool["outputSchema"])
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	url := fmt.Sprintf("mem://%s.json", tool["name"])
	if err := c.AddResource(url, doc); err != nil {
		return err
	}
	schema, err := c.Compile(url)
	if err != nil {
		return fmt.Errorf("compile the output schema of %s: %w", tool["name"], err)
	}
	raw, err := json.Marshal(structured)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return schema.Validate(inst)
}

func toolByName(tools []map[string]any, name string) map[string]any {
	for _, tool := range tools {
		if tool["name"] == name {
			return tool
		}
	}
	return nil
}

// insightFields is the projection the scenarios ask for.
var insightFields = []string{"date", "campaignId", "account.currency", "spend", "clicks", "purchases"}

// testMCPClients drives `svc mcp` against `svc-api demo` with the official
// TypeScript client (@modelcontextprotocol/client 2.4.0, e2e/js/mcp) at
// 2026-07-28 (server/discover, per-request _meta) and in the legacy era
// (initialize): tools, resources and prompts list, the glossary reads,
// svc_insights with and without fields validates against its output schema
// (the client's Ajv and ours), and a 100-row page costs at most half of what
// it cost before issue 33 (testdata/mcp-tokens.json).
func testMCPClients(t *testing.T, e *env) {
	demo, key := startDemo(t, e)
	before := readTokenRecord(t).Before
	for _, era := range []string{"modern", "legacy"} {
		t.Run(era, func(t *testing.T) {
			res := runSession(t, map[string]any{
				"command": e.bin.CLI, "args": []string{"mcp"}, "era": era,
				"env":           map[string]string{"SVC_API_KEY": key, "SVC_SITE_URL": demo.URL, "PATH": os.Getenv("PATH"), "HOME": t.TempDir()},
				"readResources": []string{"svc://glossary", "svc://freshness"},
				"prompts": []map[string]any{
					{"name": "weekly-performance-review", "arguments": map[string]string{}},
					{"name": "compare-periods", "arguments": map[string]string{"firstFrom": day(e.fix.Today, -13), "firstTo": day(e.fix.Today, -7), "secondFrom": day(e.fix.Today, -6), "secondTo": day(e.fix.Today, 0)}},
				},
				"calls": []map[string]any{
					{"tool": "svc_insights", "arguments": map[string]any{"limit": 100}},
					{"tool": "svc_insights", "arguments": map[string]any{"limit": 100, "fields": insightFields}},
					{"tool": "svc_insights", "arguments": map[string]any{}},
					{"tool": "svc_accounts", "arguments": map[string]any{}},
					{"tool": "svc_glossary", "arguments": map[string]any{}},
				},
			})
			e.rec.add("mcp client "+era, fmt.Sprintf("%+v", res))
			wantVersion := map[string]string{"modern": "2026-07-28", "legacy": "2025-11-25"}[era]
			if res.ProtocolVersion != wantVersion || res.Era != era {
				t.Errorf("negotiated %s (%s), want %s (%s)", res.ProtocolVersion, res.Era, wantVersion, era)
			}
			names := func(items []map[string]any, key string) []string {
				var out []string
				for _, it := range items {
					out = append(out, fmt.Sprint(it[key]))
				}
				slices.Sort(out)
				return out
			}
			if got := names(res.Tools, "name"); !slices.Equal(got, mcpTools) {
				t.Errorf("tools %v", got)
			}
			if got := names(res.Resources, "uri"); !slices.Equal(got, []string{"svc://freshness", "svc://glossary"}) {
				t.Errorf("resources %v", got)
			}
			if got := names(res.Prompts, "name"); !slices.Equal(got, []string{"compare-periods", "weekly-performance-review"}) {
				t.Errorf("prompts %v", got)
			}
			for _, r := range res.Reads {
				if r.Error != "" || len(r.Contents) != 1 || r.Contents[0].Text == "" {
					t.Errorf("read %s: %s %v", r.URI, r.Error, r.Contents)
				}
			}
			if g := res.Reads[0]; len(g.Contents) == 1 && (!strings.Contains(g.Contents[0].Text, "reach does not add") || !strings.Contains(g.Contents[0].Text, "**account.currency**")) {
				t.Errorf("glossary: %.300s", g.Contents[0].Text)
			}
			if f := res.Reads[1]; len(f.Contents) == 1 && !strings.Contains(f.Contents[0].Text, `"source":"stored_snapshot","dataAsOf":"2`) {
				t.Errorf("freshness: %s", f.Contents[0].Text)
			}
			for _, p := range res.PromptResults {
				if p.Error != "" || len(p.Messages) != 1 {
					t.Errorf("prompt %s: %s %v", p.Name, p.Error, p.Messages)
				}
			}
			for i, r := range res.Results {
				if r.Error != "" || r.IsError {
					t.Fatalf("call %d (%s): %s %s", i, r.Tool, r.Error, r.Text)
				}
				if r.StructuredContent != nil {
					if err := validateOutput(t, toolByName(res.Tools, r.Tool), r.StructuredContent); err != nil {
						t.Errorf("call %d (%s): structuredContent does not match the output schema: %v", i, r.Tool, err)
					}
				}
			}
			page, projected, dflt := res.Results[0], res.Results[1], res.Results[2]
			if n := len(page.StructuredContent["data"].([]any)); n != 100 {
				t.Fatalf("100-row page has %d rows", n)
			}
			t.Logf("100-row svc_insights page: text %d bytes, structuredContent %d bytes, %d tokens (before: %d, %d, %d)",
				page.TextBytes, page.StructuredBytes, page.Tokens, before.TextBytes, before.StructuredBytes, before.Tokens)
			if page.Tokens > before.Tokens/2 {
				t.Errorf("a 100-row page costs %d tokens, more than half of the %d it cost before", page.Tokens, before.Tokens)
			}
			if cols := projected.StructuredContent["columns"].([]any); len(cols)+len(projected.StructuredContent["same"].(map[string]any)) != len(insightFields) {
				t.Errorf("fields %v gave columns %v and same %v", insightFields, cols, projected.StructuredContent["same"])
			}
			if dflt.Tokens > 8000 {
				t.Errorf("svc_insights without limit costs %d tokens, more than about 8,000", dflt.Tokens)
			}
		})
	}
}

// inspectorExtras checks, with the MCP Inspector in the modern era, what the
// Inspector scenario did not: resources and prompts list, the glossary
// reads, and svc_insights with and without fields validates against its
// output schema.
func inspectorExtras(t *testing.T, e *env, inspect func(args ...string) map[string]any, listed []any) {
	var tools []map[string]any
	for _, tool := range listed {
		tools = append(tools, tool.(map[string]any))
	}
	if got := inspect("--method", "resources/list")["resources"].([]any); len(got) != 2 {
		t.Errorf("inspector: resources %v", got)
	}
	read := inspect("--method", "resources/read", "--uri", "svc://glossary")
	if c, _ := read["contents"].([]any); len(c) != 1 || !strings.Contains(fmt.Sprint(c[0].(map[string]any)["text"]), "reach does not add") {
		t.Errorf("inspector: glossary %.300v", read)
	}
	if got := inspect("--method", "prompts/list")["prompts"].([]any); len(got) != 2 {
		t.Errorf("inspector: prompts %v", got)
	}
	fields, _ := json.Marshal(insightFields)
	for _, args := range [][]string{
		{"--tool-arg", "from=" + day(e.fix.Today, -3)},
		{"--tool-arg", "from=" + day(e.fix.Today, -3), "--tool-arg", "fields=" + string(fields)},
	} {
		res := inspect(append([]string{"--method", "tools/call", "--tool-name", "svc_insights"}, args...)...)
		sc, _ := res["structuredContent"].(map[string]any)
		if res["isError"] == true || sc == nil {
			t.Errorf("inspector svc_insights %v: %.300v", args, res)
			continue
		}
		if err := validateOutput(t, toolByName(tools, "svc_insights"), sc); err != nil {
			t.Errorf("inspector svc_insights %v: structuredContent does not match the output schema: %v", args, err)
		}
	}
}
