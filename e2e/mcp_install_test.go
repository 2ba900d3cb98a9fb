package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/tailscale/hujson"
)

// hostEntry is one stdio server of a host's configuration, in the fields
// the hosts document (decoded strictly: an unknown field fails).
type hostEntry struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// testMCPInstall: `svc mcp install --client X --print` for each host gives
// a file in the host's documented format (decoded strictly into it; the MCP
// Bundle validated by the MCP Bundle CLI), holding no key, and the command
// it names, started as the host starts it (its variables resolved the way
// the host documents, the key coming from the host's secret or environment,
// svc found on the host's PATH), serves svc mcp.
func testMCPInstall(t *testing.T, e *env) {
	key := e.keys["alpha_aci"]
	site := e.replicas[1].URL
	hostPath := e.bin.Dir // the host finds svc on its PATH
	install := func(t *testing.T, dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command(e.bin.CLI, append([]string{"mcp", "install"}, args...)...)
		cmd.Dir = dir
		cmd.Env = []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, ".config"), "PATH=" + os.Getenv("PATH"),
			"SVC_SITE_URL=" + site, "SVC_API_KEY=" + key}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("svc mcp install %v: %v\n%s", args, err, stderr.String())
		}
		if strings.Contains(string(out)+stderr.String(), key) {
			t.Errorf("svc mcp install %v printed the key", args)
		}
		e.rec.add("svc mcp install "+strings.Join(args, " "), string(out)+stderr.String())
		return string(out)
	}
	// start runs the entry as the host does: command on the host's PATH,
	// args, and only the environment the host gives its servers.
	start := func(t *testing.T, command string, args []string, env map[string]string) {
		t.Helper()
		path := command
		if !filepath.IsAbs(command) {
			path = filepath.Join(hostPath, command)
		}
		cmd := exec.Command(path, args...)
		cmd.Env = []string{"PATH=" + hostPath, "HOME=" + t.TempDir()}
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		mcpSession(t, e, cmd)
	}
	hostEnv := map[string]string{"SVC_API_KEY": key} // the environment the user starts the host in

	t.Run("claude-code", func(t *testing.T) {
		out := install(t, t.TempDir(), "--client", "claude-code", "--print")
		var cfg struct {
			MCPServers map[string]hostEntry `json:"mcpServers"`
		}
		if err := unmarshalStrictJSON(out, &cfg); err != nil || cfg.MCPServers["svc"].Command != "svc" {
			t.Fatalf("not Claude Code's .mcp.json: %v\n%s", err, out)
		}
		// ${VAR} and ${VAR:-default}, from Claude Code's environment.
		expand := regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)
		s := cfg.MCPServers["svc"]
		env := map[string]string{}
		for k, v := range s.Env {
			env[k] = expand.ReplaceAllStringFunc(v, func(m string) string {
				g := expand.FindStringSubmatch(m)
				if val, ok := hostEnv[g[1]]; ok {
					return val
				}
				return g[3]
			})
		}
		start(t, s.Command, s.Args, env)
	})
	t.Run("cursor", func(t *testing.T) {
		out := install(t, t.TempDir(), "--client", "cursor", "--print")
		var cfg struct {
			MCPServers map[string]hostEntry `json:"mcpServers"`
		}
		if err := unmarshalStrictJSON(out, &cfg); err != nil {
			t.Fatalf("not Cursor's mcp.json: %v\n%s", err, out)
		}
		s := cfg.MCPServers["svc"]
		env := map[string]string{}
		for k, v := range s.Env { // ${env:NAME}
			env[k] = regexp.MustCompile(`\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}`).ReplaceAllStringFunc(v, func(m string) string {
				return hostEnv[m[6:len(m)-1]]
			})
		}
		start(t, s.Command, s.Args, env)
	})
	t.Run("vscode", func(t *testing.T) {
		out := install(t, t.TempDir(), "--client", "vscode", "--print")
		std, err := hujson.Standardize([]byte(out))
		if err != nil {
			t.Fatal(err)
		}
		var cfg struct {
			Inputs []struct {
				Type        string `json:"type"`
				ID          string `json:"id"`
				Description string `json:"description"`
				Password    bool   `json:"password"`
			} `json:"inputs"`
			Servers map[string]hostEntry `json:"servers"`
		}
		if err := unmarshalStrictJSON(string(std), &cfg); err != nil || len(cfg.Inputs) != 1 || !cfg.Inputs[0].Password || cfg.Inputs[0].Type != "promptString" {
			t.Fatalf("not VS Code's mcp.json with a password input: %v\n%s", err, out)
		}
		s := cfg.Servers["svc"]
		env := map[string]string{}
		for k, v := range s.Env { // the user types the key into the prompt
			env[k] = strings.ReplaceAll(v, "${input:"+cfg.Inputs[0].ID+"}", key)
		}
		if s.Type != "stdio" {
			t.Errorf("type %q", s.Type)
		}
		start(t, s.Command, s.Args, env)
	})
	t.Run("codex", func(t *testing.T) {
		out := install(t, t.TempDir(), "--client", "codex", "--print")
		var cfg struct {
			MCPServers map[string]struct {
				Command string            `toml:"command"`
				Args    []string          `toml:"args"`
				Env     map[string]string `toml:"env"`
				EnvVars []string          `toml:"env_vars"`
			} `toml:"mcp_servers"`
		}
		dec := toml.NewDecoder(strings.NewReader(out))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg); err != nil {
			t.Fatalf("not Codex's config.toml: %v\n%s", err, out)
		}
		s := cfg.MCPServers["svc"]
		env := map[string]string{}
		for k, v := range s.Env {
			env[k] = v
		}
		for _, name := range s.EnvVars { // forwarded from Codex's environment
			env[name] = hostEnv[name]
		}
		start(t, s.Command, s.Args, env)
	})
	t.Run("claude-desktop", func(t *testing.T) {
		dir := t.TempDir()
		manifest := install(t, dir, "--client", "claude-desktop", "--print")
		install(t, dir, "--client", "claude-desktop")
		nodeBin, mcpbCmd := distTools(t)
		unpacked := filepath.Join(t.TempDir(), "bundle")
		for _, args := range [][]string{{"unpack", filepath.Join(dir, "svc-mcp.mcpb"), unpacked}, {"validate", filepath.Join(unpacked, "manifest.json")}} {
			cmd := exec.Command(mcpbCmd, args...)
			cmd.Env = withNode22(nodeBin)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("mcpb %s: %v\n%s", args[0], err, out)
			}
		}
		if got, _ := os.ReadFile(filepath.Join(unpacked, "manifest.json")); string(got) != manifest {
			t.Errorf("--print printed another manifest than the bundle's")
		}
		var m struct {
			Server struct {
				MCPConfig hostEntry `json:"mcp_config"`
			} `json:"server"`
			UserConfig map[string]struct {
				Sensitive bool   `json:"sensitive"`
				Default   string `json:"default"`
			} `json:"user_config"`
		}
		if err := json.Unmarshal([]byte(manifest), &m); err != nil || !m.UserConfig["api_key"].Sensitive || strings.Contains(manifest, key) {
			t.Fatalf("manifest: %v\n%s", err, manifest)
		}
		userConfig := map[string]string{"api_key": key, "site_url": m.UserConfig["site_url"].Default}
		mc := m.Server.MCPConfig
		env := map[string]string{}
		for k, v := range mc.Env {
			env[k] = regexp.MustCompile(`\$\{user_config\.([a-z_]+)\}`).ReplaceAllStringFunc(v, func(s string) string {
				return userConfig[s[len("${user_config."):len(s)-1]]
			})
		}
		start(t, strings.ReplaceAll(mc.Command, "${__dirname}", unpacked), mc.Args, env)
	})
}

// unmarshalStrictJSON decodes s into v, refusing unknown fields.
func unmarshalStrictJSON(s string, v any) error {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
