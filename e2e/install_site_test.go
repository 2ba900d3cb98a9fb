package e2e

import (
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/adsnap/svc/e2e/internal/harness"
)

// TestInstallScriptSite runs scripts/install-svc.sh with a fake curl and a
// fake wget first on PATH, which record what they would fetch: a site that
// only looks like this machine (the security review's three look-alikes,
// and other forms) is refused with a clear message before anything is
// fetched, whichever of the two the script would use; https and plain http
// to localhost, [::1] and 127.0.0.0/8 go on to fetch SHA256SUMS.
func TestInstallScriptSite(t *testing.T) {
	t.Parallel()
	script := filepath.Join(harness.RepoRoot(), "scripts", "install-svc.sh")
	fakes := t.TempDir()
	log := filepath.Join(t.TempDir(), "fetched")
	for _, name := range []string{"curl", "wget"} {
		fake := "#!/bin/sh\necho \"" + name + " $*\" >> '" + log + "'\nexit 22\n"
		if err := os.WriteFile(filepath.Join(fakes, name), []byte(fake), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The script prefers curl; without one it takes wget.
	curlFirst := fakes + string(os.PathListSeparator) + os.Getenv("PATH")
	wgetOnly := t.TempDir()
	if err := os.Symlink(filepath.Join(fakes, "wget"), filepath.Join(wgetOnly, "wget")); err != nil {
		t.Fatal(err)
	}
	wgetOnly += string(os.PathListSeparator) + pathWithout(t, "curl", "wget")

	run := func(t *testing.T, path, site string, env ...string) (out, fetched string, ok bool) {
		t.Helper()
		os.Remove(log) //nolint:errcheck
		args := []string{script, "--dir", filepath.Join(t.TempDir(), "bin")}
		if site != "" {
			args = append(args, site)
		}
		cmd := exec.CommandContext(t.Context(), "sh", args...)
		cmd.Env = append(append(os.Environ(), "PATH="+path, "SVC_SITE_URL="), env...)
		b, err := cmd.CombinedOutput()
		f, _ := os.ReadFile(log)
		return string(b), string(f), err == nil
	}
	for _, tc := range []struct{ site, want string }{
		// The review's three look-alikes.
		{"http://127.evil.example", "refusing plain http to a host that is not loopback (127.evil.example in http://127.evil.example)"},
		{"http://localhost:1@evil.example", "refusing the site http://localhost:1@evil.example: it has user information (the part before @) that hides the real host"},
		{"http://localhost.evil.example", "refusing plain http to a host that is not loopback (localhost.evil.example in http://localhost.evil.example)"},
		// Other ways to look like this machine, or to hide the host.
		{"http://127.0.0.1.evil.example", "not loopback"},
		{"http://127.1", "not loopback"},
		{"http://0177.0.0.1", "not loopback"},
		{"http://127.0.0.01", "not loopback"},
		{"http://127.0.0.256", "not loopback"},
		{"http://127.0.0.1.", "not loopback"},
		{"http://localhost.", "not loopback"},
		{"http://[::2]", "not loopback"},
		{"http://[::ffff:127.0.0.1]", "not loopback"},
		{"https://user:pw@adsnap.example", "it has user information"},
		{"https://adsnap.example?x=@evil.example", "no query or fragment"},
		{"https://adsnap.example/a?b", "no query or fragment"},
		{"https://adsnap.example#@evil.example", "no query or fragment"},
		{"https://adsnap.example\\@evil.example", "it has user information"},
		{"https://adsnap.example evil.example", "the host may hold only letters, digits"},
		{"https://adsnap.example:99999", "port out of range"},
		{"https://adsnap.example:x", "the port must be a number"},
		{"https://[::1", "malformed IPv6 address"},
		{"ftp://adsnap.example", "the site URL must start with https://"},
		{"HTTP://127.0.0.1", "the site URL must start with https://"},
	} {
		for _, p := range []struct{ name, path string }{{"curl", curlFirst}, {"wget", wgetOnly}} {
			out, fetched, ok := run(t, p.path, tc.site)
			if ok || fetched != "" || !strings.Contains(out, "install-svc: ") || !strings.Contains(out, tc.want) {
				t.Errorf("%s with %s: ok=%v, fetched %q, output %q; want a refusal saying %q and nothing fetched", tc.site, p.name, ok, fetched, out, tc.want)
			}
		}
	}
	// The same site from SVC_SITE_URL is refused the same way.
	if out, fetched, ok := run(t, curlFirst, "", "SVC_SITE_URL=http://localhost.evil.example"); ok || fetched != "" || !strings.Contains(out, "not loopback") {
		t.Errorf("SVC_SITE_URL look-alike: ok=%v fetched %q\n%s", ok, fetched, out)
	}
	// What is allowed goes on to fetch SHA256SUMS (and the fake fails it).
	for _, site := range []string{"https://adsnap.example", "https://adsnap.example:8443/base", "http://localhost:8080", "http://LOCALHOST",
		"http://127.0.0.1:8080", "http://127.255.0.9", "http://[::1]:8080"} {
		out, fetched, ok := run(t, curlFirst, site)
		if ok || !strings.HasPrefix(fetched, "curl ") || !strings.Contains(fetched, site+"/developers/SHA256SUMS") || !strings.Contains(out, "could not download") {
			t.Errorf("%s: ok=%v fetched %q\n%s", site, ok, fetched, out)
		}
		if _, fetched, _ := run(t, wgetOnly, site); !strings.HasPrefix(fetched, "wget ") {
			t.Errorf("%s without curl: fetched %q, want wget", site, fetched)
		}
	}
}

// TestReleaseKeyPublished: the release public key is the same in the README,
// RELEASING.md, the install script and svc's built-in key, and it is a
// minisign Ed25519 public key.
func TestReleaseKeyPublished(t *testing.T) {
	t.Parallel()
	root := harness.RepoRoot()
	read := func(rel string) string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	m := regexp.MustCompile(`(?m)^release_public_key=(RW[A-Za-z0-9+/]{54})$`).FindStringSubmatch(read("scripts/install-svc.sh"))
	if m == nil {
		t.Fatal("scripts/install-svc.sh has no release_public_key= line")
	}
	key := m[1]
	raw, err := base64.StdEncoding.DecodeString(key)
	if err != nil || len(raw) != 42 || string(raw[:2]) != "Ed" {
		t.Fatalf("%s is not a minisign Ed25519 public key (%v)", key, err)
	}
	for _, rel := range []string{"README.md", "RELEASING.md", "svc-cli/README.md"} {
		if !strings.Contains(read(rel), key) {
			t.Errorf("%s does not publish the release key %s", rel, key)
		}
	}
	if !strings.Contains(read("svc-cli/internal/build/build.go"), `const DefaultReleaseKey = "`+key+`"`) {
		t.Errorf("svc's built-in release key is not %s", key)
	}
}
