package svccli_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// serverEntry is a host's configuration of one stdio MCP server.
type serverEntry struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// TestReadmeMCPHosts parses each configuration block of the README's "Use
// with an MCP host" section in the shape its host reads, and checks that it
// starts `svc mcp` with the key in SVC_API_KEY.
func TestReadmeMCPHosts(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Use with an MCP host\n")
	if !ok {
		t.Fatal(`README.md has no "## Use with an MCP host" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	// Each block belongs to the host named in bold last before it
	// ("**Cursor**", "**Claude Desktop, by hand**" → "Claude Desktop").
	label := regexp.MustCompile(`\*\*([^*,]+)[^*]*\*\*`)
	hosts := map[string]string{}
	for rest := section; ; {
		before, after, ok := strings.Cut(rest, "```json\n")
		if !ok {
			break
		}
		block, next, _ := strings.Cut(after, "```")
		names := label.FindAllStringSubmatch(before, -1)
		if len(names) == 0 {
			t.Fatalf("a JSON block names no host:\n%s", block)
		}
		host := names[len(names)-1][1]
		if _, dup := hosts[host]; dup {
			t.Errorf("two blocks for %s", host)
		}
		hosts[host] = block
		rest = next
	}
	if len(hosts) != 4 {
		t.Errorf("blocks for %d hosts, want 4 (Claude Desktop, VS Code, Cursor, any other stdio host): %v", len(hosts), hosts)
	}
	check := func(host string, e serverEntry, wantKey string) {
		t.Helper()
		if e.Command != "svc" || !cmp.Equal(e.Args, []string{"mcp"}) || e.Env["SVC_API_KEY"] != wantKey || len(e.Env) != 1 {
			t.Errorf("%s: server entry %+v, want command svc, args [mcp], env SVC_API_KEY=%s", host, e, wantKey)
		}
	}
	for host, key := range map[string]string{"Claude Desktop": "svc_live_…", "Cursor": "${env:SVC_API_KEY}"} {
		var cfg struct {
			MCPServers map[string]serverEntry `json:"mcpServers"`
		}
		if err := unmarshalStrict(hosts[host], &cfg); err != nil || len(cfg.MCPServers) != 1 {
			t.Errorf("%s block: %v (%d servers)\n%s", host, err, len(cfg.MCPServers), hosts[host])
			continue
		}
		check(host, cfg.MCPServers["svc"], key)
	}

	var vscode struct {
		Inputs []struct {
			Type        string `json:"type"`
			ID          string `json:"id"`
			Description string `json:"description"`
			Password    bool   `json:"password"`
		} `json:"inputs"`
		Servers map[string]serverEntry `json:"servers"`
	}
	if err := unmarshalStrict(hosts["VS Code"], &vscode); err != nil || len(vscode.Servers) != 1 || len(vscode.Inputs) != 1 {
		t.Fatalf("VS Code block: %v\n%s", err, hosts["VS Code"])
	}
	in := vscode.Inputs[0]
	if in.Type != "promptString" || !in.Password || in.ID == "" {
		t.Errorf("VS Code input %+v: want a password promptString", in)
	}
	if s := vscode.Servers["svc"]; s.Type != "stdio" {
		t.Errorf("VS Code server type %q, want stdio", s.Type)
	}
	check("VS Code", vscode.Servers["svc"], "${input:"+in.ID+"}")

	var generic serverEntry
	if err := unmarshalStrict(hosts["Any other stdio host"], &generic); err != nil {
		t.Fatalf("generic block: %v\n%s", err, hosts["Any other stdio host"])
	}
	check("generic", generic, "svc_live_…")
}

// unmarshalStrict decodes s into v, refusing unknown fields and trailing data.
func unmarshalStrict(s string, v any) error {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return &json.SyntaxError{}
	}
	return nil
}
