package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adsnap/svc/e2e/internal/harness"
)

// testDistribution releases svc into the replicas' downloads directory, with
// the first replica as the built-in site, installs it with install-svc.sh
// from a replica's /developers/, and runs the installed svc against the replicas.
func testDistribution(t *testing.T, e *env) {
	root := harness.RepoRoot()
	release := exec.CommandContext(t.Context(), filepath.Join(root, "scripts", "release-cli.sh"), "1.0.0")
	release.Env = append(os.Environ(), "DIST_DIR="+e.downloads, "SITE_URL="+e.replicas[0].URL)
	if out, err := release.CombinedOutput(); err != nil {
		t.Fatalf("release-cli.sh: %v\n%s", err, out)
	}
	resp, body := e.get(t, harness.ClientFrom("127.0.0.15"), e.replicas[1].URL+"/developers/", "")
	if resp.StatusCode != 200 || !strings.Contains(string(body), "svc-cli-1.0.0-linux-amd64.tgz") || !strings.Contains(string(body), "SHA256SUMS") {
		t.Fatalf("/developers/ index: %d %.500s", resp.StatusCode, body)
	}

	prefix := filepath.Join(t.TempDir(), "bin")
	install := exec.CommandContext(t.Context(), "sh", filepath.Join(root, "scripts", "install-svc.sh"), "--prefix", prefix, e.replicas[1].URL)
	out, err := install.CombinedOutput()
	if err != nil {
		t.Fatalf("install-svc.sh: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "not a signature") {
		t.Errorf("the installer does not say the checksum is no signature:\n%s", out)
	}
	installed := filepath.Join(prefix, "svc")
	// The built-in site is the first replica; SVC_SITE_URL points at the second.
	for _, base := range []string{"", e.replicas[1].URL} {
		env := []string{"SVC_API_KEY=" + e.keys["alpha_aci"], "SVC_SITE_URL=" + base}
		stdout, stderr, code, err := harness.Run(t.Context(), installed, env, "", "accounts", "-o", "json")
		e.rec.add("installed svc", stdout+stderr)
		if err != nil || code != 0 || !strings.Contains(stdout, "acc_alpha_eur") {
			t.Errorf("installed svc (site %q): exit %d %v\n%s\n%s", base, code, err, stdout, stderr)
		}
	}
}
