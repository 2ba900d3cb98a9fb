package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
)

// codex writes Codex's config.toml. Documented format
// (https://developers.openai.com/codex/mcp, "Configure with config.toml"):
// a table [mcp_servers.NAME] with command, args, env (values set for the
// server) and env_vars (names of variables to allow and forward from
// Codex's environment), in ~/.codex/config.toml ($CODEX_HOME/config.toml)
// or .codex/config.toml of a trusted project.
//
// The table is replaced as text, because no maintained Go TOML library
// writes a document back with its comments and layout: the lines of
// [mcp_servers.svc] and its sub-tables are replaced, every other byte is
// kept, and the result is parsed with go-toml to check that every other
// key is unchanged and that the svc table is the one intended.
type codex struct{}

func (codex) path(opts *InstallOptions) (string, error) {
	if opts.Scope == "project" {
		return filepath.Abs(filepath.Join(".codex", "config.toml"))
	}
	if dir := opts.Getenv("CODEX_HOME"); dir != "" {
		return filepath.Join(dir, "config.toml"), nil
	}
	h, err := home()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, ".codex", "config.toml"), nil
}

// codexHeader matches the header of the svc table or of one of its
// sub-tables ([mcp_servers.svc.env]).
var (
	codexHeader = regexp.MustCompile(`^\s*\[\s*mcp_servers\s*\.\s*("svc"|'svc'|svc)\s*(\.[^\]]*)?\]\s*(#.*)?$`)
	anyHeader   = regexp.MustCompile(`^\s*\[`)
)

func (codex) update(opts *InstallOptions, old []byte) ([]byte, error) {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) } // a JSON string is a TOML basic string
	var block strings.Builder
	fmt.Fprintf(&block, "[mcp_servers.%s]\ncommand = %s\nargs = [\"mcp\"]\nenv_vars = [\"SVC_API_KEY\"]\n", serverName, q(opts.Command))
	if site := siteEnv(opts); site != nil {
		fmt.Fprintf(&block, "env = { SVC_SITE_URL = %s }\n", q(site["SVC_SITE_URL"]))
	}

	var before map[string]any
	if err := toml.Unmarshal(old, &before); err != nil {
		return nil, notTOML(err)
	}
	lines := strings.SplitAfter(string(old), "\n")
	var out []string
	inserted, inSvc := false, false
	for _, line := range lines {
		switch {
		case codexHeader.MatchString(line):
			if !inserted {
				out = append(out, block.String())
				inserted = true
			}
			inSvc = true
			continue
		case anyHeader.MatchString(line):
			inSvc = false
		}
		if !inSvc {
			out = append(out, line)
		}
	}
	text := strings.Join(out, "")
	if !inserted {
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if text != "" {
			text += "\n"
		}
		text += block.String()
	}

	var after map[string]any
	if err := toml.Unmarshal([]byte(text), &after); err != nil {
		return nil, fmt.Errorf("mcp_servers.svc is defined in a way this command cannot replace (inline or dotted keys): edit it by hand (%w)", err)
	}
	want := map[string]any{"command": opts.Command, "args": []any{"mcp"}, "env_vars": []any{"SVC_API_KEY"}}
	if site := siteEnv(opts); site != nil {
		want["env"] = map[string]any{"SVC_SITE_URL": site["SVC_SITE_URL"]}
	}
	servers, _ := after["mcp_servers"].(map[string]any)
	if !reflect.DeepEqual(servers[serverName], want) {
		return nil, fmt.Errorf("mcp_servers.svc is defined in a way this command cannot replace (inline or dotted keys): edit it by hand")
	}
	if before == nil {
		before = map[string]any{}
	}
	drop := func(doc map[string]any) {
		if s, ok := doc["mcp_servers"].(map[string]any); ok {
			delete(s, serverName)
			if len(s) == 0 {
				delete(doc, "mcp_servers")
			}
		}
	}
	drop(before)
	drop(after)
	if !reflect.DeepEqual(before, after) {
		return nil, fmt.Errorf("replacing mcp_servers.svc would change other settings (keys of it defined elsewhere in the file?): edit it by hand")
	}
	return []byte(text), nil
}

func (codex) secret() string {
	return `Key: an environment reference. Codex forwards SVC_API_KEY from its own environment (env_vars = ["SVC_API_KEY"]): export SVC_API_KEY before starting codex.`
}

// notTOML is the usage error (exit 2) of a file that is not TOML, with the
// line and column go-toml reports.
func notTOML(err error) error {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return cmdutil.FlagErrorf("the file is not TOML (fix or move it, then run again): line %d, column %d: %s", row, col, err)
	}
	return cmdutil.FlagErrorf("the file is not TOML (fix or move it, then run again): %s", err)
}
