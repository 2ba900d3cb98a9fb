package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/adsnap/svc/e2e/internal/harness"
)

// What a host pays for `svc mcp` before any question (issue 46): the whole
// JSON result of tools/list, resources/list and prompts/list, counted as
// TestMCPTokenUsage counts (o200k_base, e2e/js/mcp/session.mjs).
const (
	maxToolsListTokens     = 4000
	maxResourcesListTokens = 500
	maxPromptsListTokens   = 500
)

// TestMCPListTokens pins the size of the three lists of the built `svc mcp`,
// in the protocol era that repeats the server's information in every result.
func TestMCPListTokens(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "svc")
	build := exec.Command("go", "build", "-o", bin, "./cmd/svc")
	build.Dir = filepath.Join(harness.RepoRoot(), "svc-cli")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build svc: %v\n%s", err, out)
	}
	for _, era := range []string{"modern", "legacy"} {
		res := runSession(t, map[string]any{
			"command": bin, "args": []string{"mcp"}, "era": era,
			"env": map[string]string{"SVC_API_KEY": "svc_live_00000000000000000000000000000000000001w1XY4", "PATH": os.Getenv("PATH"), "HOME": t.TempDir()},
		})
		lt := res.ListTokens
		t.Logf("%s: tools/list %d tokens, resources/list %d, prompts/list %d", era, lt.Tools, lt.Resources, lt.Prompts)
		if lt.Tools == 0 || lt.Resources == 0 || lt.Prompts == 0 {
			t.Fatalf("%s: a list was not counted: %+v", era, lt)
		}
		if lt.Tools > maxToolsListTokens {
			t.Errorf("%s: tools/list is %d tokens, more than %d", era, lt.Tools, maxToolsListTokens)
		}
		if lt.Resources > maxResourcesListTokens {
			t.Errorf("%s: resources/list is %d tokens, more than %d", era, lt.Resources, maxResourcesListTokens)
		}
		if lt.Prompts > maxPromptsListTokens {
			t.Errorf("%s: prompts/list is %d tokens, more than %d", era, lt.Prompts, maxPromptsListTokens)
		}
	}
}
