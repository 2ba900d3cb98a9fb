package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"

	"github.com/tailscale/hujson"

	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
)

// The JSON hosts' files are edited with hujson (JSON with comments and
// trailing commas, which VS Code's mcp.json allows): the file is parsed, the
// svc entry is set with a JSON Patch, and every other member, comment
// included, stays. Files of hosts that read strict JSON are written back as
// strict JSON.

// serverName is the name of the entry in every host's configuration.
const serverName = "svc"

// patchJSON sets /<key>/svc to entry in the JSON (or JWCC) document old,
// creating the object at key when it is missing. strict writes standard JSON
// (for hosts that do not read comments); otherwise comments are kept.
func patchJSON(old []byte, key string, entry any, extra func(v *hujson.Value) error, strict bool) ([]byte, error) {
	if len(old) == 0 {
		old = []byte("{}")
	}
	// A copy: the values alias the buffer parsed, and Standardize blanks
	// its comments in place; old is what the backup keeps.
	v, err := hujson.Parse(bytes.Clone(old))
	if err != nil {
		// A usage error (exit 2), with hujson's line and column; never
		// the network failure that its io.ErrUnexpectedEOF would map to.
		return nil, cmdutil.FlagErrorf("the file is not JSON (fix or move it, then run again): %s", err)
	}
	if _, ok := v.Value.(*hujson.Object); !ok {
		return nil, fmt.Errorf("the file is not a JSON object")
	}
	if v.Find("/"+key) == nil {
		if err := patch(&v, "add", "/"+key, map[string]any{}); err != nil {
			return nil, err
		}
	}
	if err := patch(&v, "add", "/"+key+"/"+serverName, entry); err != nil {
		return nil, err
	}
	if extra != nil {
		if err := extra(&v); err != nil {
			return nil, err
		}
	}
	if strict {
		v.Standardize()
	}
	v.Format()
	return v.Pack(), nil
}

func patch(v *hujson.Value, op, path string, value any) error {
	p, err := json.Marshal([]map[string]any{{"op": op, "path": path, "value": value}})
	if err != nil {
		return err
	}
	if err := v.Patch(p); err != nil {
		return fmt.Errorf("setting %s: %w", path, err)
	}
	return nil
}

// stdioEntry is the entry most hosts take: command, args and env.
func stdioEntry(opts *InstallOptions, key map[string]string) map[string]any {
	e := map[string]any{"type": "stdio", "command": opts.Command, "args": []string{"mcp"}}
	env := map[string]string{}
	for k, v := range key {
		env[k] = v
	}
	for k, v := range siteEnv(opts) {
		env[k] = v
	}
	if len(env) > 0 {
		e["env"] = env
	}
	return e
}

// claudeCode writes Claude Code's MCP configuration. Documented format
// (https://code.claude.com/docs/en/mcp, "Environment variable expansion in
// .mcp.json"): {"mcpServers": {NAME: {"type": "stdio", "command", "args",
// "env"}}} in .mcp.json (project scope) or ~/.claude.json (user scope);
// ${VAR} and ${VAR:-default} are expanded in command, args and env of
// .mcp.json. Expansion in ~/.claude.json is not documented
// (anthropics/claude-code#43693), so the user scope writes no env: Claude
// Code starts stdio servers with its own environment, SVC_API_KEY included.
type claudeCode struct{}

func (claudeCode) path(opts *InstallOptions) (string, error) {
	return projectOrHome(opts, ".mcp.json", ".claude.json")
}

func (claudeCode) update(opts *InstallOptions, old []byte) ([]byte, error) {
	key := map[string]string{"SVC_API_KEY": "${SVC_API_KEY:-}"}
	if opts.Scope == "user" {
		key = nil
	}
	return patchJSON(old, "mcpServers", stdioEntry(opts, key), nil, true)
}

func (claudeCode) secret() string {
	return "Key: an environment reference. Claude Code passes SVC_API_KEY from its own environment (${SVC_API_KEY:-} in .mcp.json): export SVC_API_KEY in the shell that starts claude."
}

// cursor writes Cursor's mcp.json. Documented format
// (https://cursor.com/docs/context/mcp, "Configuration" and "Config
// interpolation"): {"mcpServers": {NAME: {"type": "stdio", "command",
// "args", "env"}}} in ~/.cursor/mcp.json or .cursor/mcp.json; ${env:NAME}
// is replaced by the environment variable NAME in command, args, env, url
// and headers.
type cursor struct{}

func (cursor) path(opts *InstallOptions) (string, error) {
	return projectOrHome(opts, filepath.Join(".cursor", "mcp.json"), filepath.Join(".cursor", "mcp.json"))
}

func (cursor) update(opts *InstallOptions, old []byte) ([]byte, error) {
	return patchJSON(old, "mcpServers", stdioEntry(opts, map[string]string{"SVC_API_KEY": "${env:SVC_API_KEY}"}), nil, true)
}

func (cursor) secret() string {
	return "Key: an environment reference. Cursor passes SVC_API_KEY from its own environment (${env:SVC_API_KEY}): export SVC_API_KEY before starting Cursor."
}

// vscode writes VS Code's mcp.json. Documented format
// (https://code.visualstudio.com/docs/copilot/reference/mcp-configuration):
// {"inputs": [{"type": "promptString", "id", "description", "password":
// true}], "servers": {NAME: {"type": "stdio", "command", "args", "env"}}}
// in .vscode/mcp.json or the user profile's mcp.json; ${input:ID} asks the
// user once and keeps the answer in VS Code's secret storage.
type vscode struct{}

const vscodeInput = "svc-api-key"

func (vscode) path(opts *InstallOptions) (string, error) {
	if opts.Scope == "project" {
		return filepath.Abs(filepath.Join(".vscode", "mcp.json"))
	}
	dir, err := userConfigDir()
	if err != nil {
		return "", fmt.Errorf("no user configuration directory (give --config): %w", err)
	}
	return filepath.Join(dir, "Code", "User", "mcp.json"), nil
}

func (vscode) update(opts *InstallOptions, old []byte) ([]byte, error) {
	input := map[string]any{"type": "promptString", "id": vscodeInput, "description": "Snapshot Developer Service key (svc_live_…)", "password": true}
	entry := stdioEntry(opts, map[string]string{"SVC_API_KEY": "${input:" + vscodeInput + "}"})
	return patchJSON(old, "servers", entry, func(v *hujson.Value) error {
		if v.Find("/inputs") == nil {
			return patch(v, "add", "/inputs", []any{input})
		}
		var doc struct {
			Inputs []struct {
				ID string `json:"id"`
			} `json:"inputs"`
		}
		std, err := hujson.Standardize(append([]byte(nil), v.Pack()...)) // it works in place
		if err != nil {
			return err
		}
		if err := json.Unmarshal(std, &doc); err != nil {
			return fmt.Errorf("inputs is not a list of inputs: %w", err)
		}
		for i, in := range doc.Inputs {
			if in.ID == vscodeInput {
				return patch(v, "replace", fmt.Sprintf("/inputs/%d", i), input)
			}
		}
		return patch(v, "add", "/inputs/-", input)
	}, false)
}

func (vscode) secret() string {
	return `Key: VS Code's secret storage. VS Code asks for it once (input svc-api-key, "password": true) when it starts the server.`
}

// goos is runtime.GOOS, for the bundle's platform.
var goos = runtime.GOOS
