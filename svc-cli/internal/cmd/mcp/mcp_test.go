package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
	"github.com/adsnap/svc/svc-cli/internal/testapi"
)

func TestNewCmdMCP(t *testing.T) {
	t.Parallel()
	ios, _, _, _ := testapi.Streams(testapi.TTY{})
	var got *MCPOptions
	f := testapi.Factory(ios, map[string]string{"SVC_SITE_URL": "http://127.0.0.1:9", "SVC_API_KEY": testapi.Key})
	cmd := NewCmdMCP(f, func(o *MCPOptions) error { got = o; return nil })
	if err := testapi.Execute(t, cmd, "--verbose"); err != nil {
		t.Fatal(err)
	}
	if got.SiteURL != "http://127.0.0.1:9" || got.APIKey != testapi.Key || !got.Verbose || len(got.SDKOptions) == 0 {
		t.Errorf("options = %+v", got)
	}
	for _, args := range []string{"--key-stdin", "extra"} {
		if code, _ := cmdutil.ExitFor(testapi.Execute(t, NewCmdMCP(f, nil), args)); code != cmdutil.ExitUsage {
			t.Errorf("%s: exit %d, want usage", args, code)
		}
	}
}

// TestMCPStartsWithoutKey: without a key, or with a malformed one, svc mcp
// still completes the MCP handshake (a host would otherwise show only
// "connection closed"), and each tool call answers with a tool error that
// says what to fix; standard error says it too.
func TestMCPStartsWithoutKey(t *testing.T) {
	for key, want := range map[string]string{"": "SVC_API_KEY is not set", "svc_live_nope": "SVC_API_KEY is malformed"} {
		ios, stdin, stdout, stderr := testapi.Streams(testapi.TTY{})
		stdin.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"svc_accounts","arguments":{}}}
`)
		err := testapi.Execute(t, NewCmdMCP(testapi.Factory(ios, map[string]string{"SVC_API_KEY": key, "SVC_SITE_URL": "http://127.0.0.1:9"}), nil), "")
		if err != nil {
			t.Fatalf("key %q: %v", key, err)
		}
		var initialized, toolErr bool
		for line := range strings.Lines(stdout.String()) {
			var msg struct {
				ID     int `json:"id"`
				Result struct {
					ProtocolVersion string `json:"protocolVersion"`
					IsError         bool   `json:"isError"`
					Content         []struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(line), &msg); err != nil {
				t.Fatalf("key %q: stdout line %q: %v", key, line, err)
			}
			switch msg.ID {
			case 1:
				initialized = msg.Result.ProtocolVersion != ""
			case 2:
				toolErr = msg.Result.IsError && len(msg.Result.Content) == 1 && strings.Contains(msg.Result.Content[0].Text, want)
			}
		}
		if !initialized || !toolErr {
			t.Errorf("key %q: handshake %v, tool error with %q %v; stdout:\n%s", key, initialized, want, toolErr, stdout)
		}
		if !strings.Contains(stderr.String(), "SVC_API_KEY") {
			t.Errorf("key %q: stderr does not name SVC_API_KEY: %s", key, stderr)
		}
	}
}
