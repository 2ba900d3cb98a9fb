package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/tailscale/hujson"

	"github.com/adsnap/svc/svc-cli/internal/testapi"
)

// existing are host files with other entries (and, for VS Code, comments)
// that install must keep.
var existing = map[string]string{
	"claude-code": `{"mcpServers": {"other": {"command": "other-server", "args": ["--x"]}}, "theme": "dark"}`,
	"cursor":      `{"mcpServers": {"other": {"command": "other-server"}}}`,
	"vscode": `{
	// my servers
	"inputs": [{"type": "promptString", "id": "gh", "password": true}],
	"servers": {"other": {"type": "stdio", "command": "other-server"}},
}`,
	"codex": "# my codex settings\nmodel = \"o3\"\n\n[mcp_servers.other]\ncommand = \"other-server\"\n\n[mcp_servers.svc]\ncommand = \"old-svc\"\n\n[mcp_servers.svc.env]\nSVC_API_KEY = \"svc_live_00000000000000000000000000000000000001w1XY4\"\n\n[profiles.x]\nmodel = \"o4\"\n",
}

// entryOf reads the svc entry and the other entries of a host's file.
func entryOf(t *testing.T, client string, data []byte) (svc map[string]any, doc map[string]any) {
	t.Helper()
	if client == "codex" {
		if err := toml.Unmarshal(data, &doc); err != nil {
			t.Fatalf("codex file is not TOML: %v\n%s", err, data)
		}
		return doc["mcp_servers"].(map[string]any)["svc"].(map[string]any), doc
	}
	v, err := hujson.Standardize(append([]byte(nil), data...)) // it works in place
	if err != nil {
		t.Fatalf("%s file is not JSON: %v\n%s", client, err, data)
	}
	if client != "vscode" && string(v) != string(data) {
		t.Errorf("%s reads strict JSON, got:\n%s", client, data)
	}
	if err := json.Unmarshal(v, &doc); err != nil {
		t.Fatal(err)
	}
	key := "mcpServers"
	if client == "vscode" {
		key = "servers"
	}
	return doc[key].(map[string]any)["svc"].(map[string]any), doc
}

func TestInstall(t *testing.T) {
	for _, client := range []string{"claude-code", "cursor", "vscode", "codex"} {
		t.Run(client, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "conf")
			if err := os.WriteFile(path, []byte(existing[client]), 0o640); err != nil {
				t.Fatal(err)
			}
			var lastErr string
			run := func(args ...string) string {
				ios, _, stdout, stderr := testapi.Streams(testapi.TTY{})
				defer func() { lastErr = stderr.String() }()
				f := testapi.Factory(ios, map[string]string{"SVC_API_KEY": testapi.Key, "SVC_SITE_URL": "https://ads.example"})
				cmd := NewCmdInstall(f, nil)
				cmd.SetArgs(append([]string{"--client", client, "--config", path}, args...))
				if err := cmd.Execute(); err != nil {
					t.Fatalf("install %v: %v", args, err)
				}
				out := stdout.String() + stderr.String()
				if strings.Contains(out, "svc_live_00000000000000000000000000000000000001w1XY4") || strings.Contains(out, testapi.Key) {
					t.Errorf("output holds the key: %s", out)
				}
				return stdout.String()
			}
			printed := run("--print")
			if data, _ := os.ReadFile(path); string(data) != existing[client] {
				t.Errorf("--print changed the file")
			}
			run()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != printed {
				t.Errorf("--print printed\n%s\nbut install wrote\n%s", printed, data)
			}
			if strings.Contains(string(data), "svc_live_0") || strings.Contains(string(data), testapi.Key) {
				t.Errorf("the file holds a key:\n%s", data)
			}
			if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
				t.Errorf("mode %v, want the file's 0640", st.Mode().Perm())
			}
			backups, _ := filepath.Glob(path + ".bak-*")
			if len(backups) != 1 {
				t.Fatalf("backups %v", backups)
			}
			if warned := strings.Contains(lastErr, "held a developer key"); warned != (client == "codex") {
				t.Errorf("warning about the old key: %q", lastErr)
			}
			if b, _ := os.ReadFile(backups[0]); string(b) != existing[client] {
				t.Errorf("backup is not the previous file")
			}
			entry, doc := entryOf(t, client, data)
			if entry["command"] != "svc" || !equalJSON(entry["args"], []any{"mcp"}) {
				t.Errorf("entry %v", entry)
			}
			env, _ := entry["env"].(map[string]any)
			if env["SVC_SITE_URL"] != "https://ads.example" {
				t.Errorf("site %v", env)
			}
			switch client {
			case "claude-code":
				if env["SVC_API_KEY"] != "${SVC_API_KEY:-}" || doc["theme"] != "dark" || doc["mcpServers"].(map[string]any)["other"] == nil {
					t.Errorf("claude-code: %s", data)
				}
			case "cursor":
				if env["SVC_API_KEY"] != "${env:SVC_API_KEY}" || doc["mcpServers"].(map[string]any)["other"] == nil {
					t.Errorf("cursor: %s", data)
				}
			case "vscode":
				inputs := doc["inputs"].([]any)
				if env["SVC_API_KEY"] != "${input:svc-api-key}" || len(inputs) != 2 || inputs[1].(map[string]any)["password"] != true ||
					!strings.Contains(string(data), "// my servers") || doc["servers"].(map[string]any)["other"] == nil {
					t.Errorf("vscode: %s", data)
				}
			case "codex":
				if !equalJSON(entry["env_vars"], []any{"SVC_API_KEY"}) || doc["model"] != "o3" || doc["profiles"] == nil ||
					doc["mcp_servers"].(map[string]any)["other"] == nil || !strings.HasPrefix(string(data), "# my codex settings\n") || strings.Contains(string(data), "old-svc") {
					t.Errorf("codex:\n%s", data)
				}
			}
			// Again: nothing changes, no second backup.
			if out := run(); !strings.Contains(out, "nothing changed") {
				t.Errorf("second run: %s", out)
			}
			if again, _ := os.ReadFile(path); string(again) != string(data) {
				t.Error("second run changed the file")
			}
			if backups, _ := filepath.Glob(path + ".bak-*"); len(backups) != 1 {
				t.Errorf("backups after the second run: %v", backups)
			}
		})
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestInstallBundle(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "svc-mcp.mcpb")
	fake := filepath.Join(dir, "svc")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		ios, _, stdout, _ := testapi.Streams(testapi.TTY{})
		opts := &InstallOptions{IO: ios, Client: "claude-desktop", Scope: "user", Config: path, Command: "svc", Getenv: func(string) string { return "" },
			Now: func() time.Time { return time.Unix(0, 0) }, Exe: func() (string, error) { return fake, nil }}
		if err := installRun(opts); err != nil {
			t.Fatal(err)
		}
		if i == 1 && !strings.Contains(stdout.String(), "nothing changed") {
			t.Errorf("second run: %s", stdout)
		}
	}
	manifest, _ := bundleManifest(&InstallOptions{})
	var m map[string]any
	if err := json.Unmarshal(manifest, &m); err != nil {
		t.Fatal(err)
	}
	uc := m["user_config"].(map[string]any)["api_key"].(map[string]any)
	if uc["sensitive"] != true || !strings.Contains(string(manifest), `"SVC_API_KEY": "${user_config.api_key}"`) {
		t.Errorf("manifest %s", manifest)
	}
}
