package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/adsnap/svc/e2e/internal/harness"
)

// signedRelease writes, into a new directory, what a site serves for svc
// release version: this platform's archive (its svc a script that prints
// the version), SHA256SUMS, and SHA256SUMS.minisig signed by the minisign
// key keyFile with the trusted comment scripts/release-cli.sh writes.
func signedRelease(t *testing.T, keyFile, version string) string {
	t.Helper()
	dir := t.TempDir()
	var tgz bytes.Buffer
	zw := gzip.NewWriter(&tgz)
	tw := tar.NewWriter(zw)
	body := []byte("#!/bin/sh\necho svc " + version + "\n")
	if err := tw.WriteHeader(&tar.Header{Name: "svc", Mode: 0o755, Size: int64(len(body))}); err != nil {
		t.Fatal(err)
	}
	tw.Write(body) //nolint:errcheck
	if err := errors.Join(tw.Close(), zw.Close()); err != nil {
		t.Fatal(err)
	}
	archive := "svc-cli-" + version + "-" + runtime.GOOS + "-" + runtime.GOARCH + ".tgz"
	if err := os.WriteFile(filepath.Join(dir, archive), tgz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sums := sha256File(t, filepath.Join(dir, archive)) + "  " + archive + "\n"
	if err := os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(sums), 0o644); err != nil {
		t.Fatal(err)
	}
	comment := fmt.Sprintf("timestamp:0\tfile:SHA256SUMS\thashed\tsvc-cli %s (commit 0123456789ab)", version)
	cmd := exec.CommandContext(t.Context(), "minisign", "-S", "-s", keyFile, "-m", "SHA256SUMS", "-t", comment)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("minisign -S: %v\n%s", err, out)
	}
	return dir
}

// TestRollbackRefused (security review 2, finding 3): a site serving an
// older, genuinely signed release does not get it installed by the
// installer of a newer release (with minisign, and with OpenSSL alone), nor
// accepted by `svc verify` of a newer svc, unless the user names that
// version; a --version that is not the signed release is refused too.
func TestRollbackRefused(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("minisign"); err != nil {
		t.Fatal("minisign is not installed (scripts/test-deps.sh installs it: apt-get install minisign)")
	}
	keys := t.TempDir()
	keyFile, pubFile := filepath.Join(keys, "release.key"), filepath.Join(keys, "release.pub")
	if out, err := exec.CommandContext(t.Context(), "minisign", "-G", "-W", "-p", pubFile, "-s", keyFile).CombinedOutput(); err != nil {
		t.Fatalf("minisign -G: %v\n%s", err, out)
	}
	pubText, err := os.ReadFile(pubFile)
	if err != nil {
		t.Fatal(err)
	}
	pub := strings.TrimSpace(strings.Split(string(pubText), "\n")[1])
	old, current := signedRelease(t, keyFile, "0.9.0"), signedRelease(t, keyFile, "1.0.0")

	// The installer as release-cli publishes it for 1.0.0 with this key.
	src, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "scripts", "install-svc.sh"))
	if err != nil {
		t.Fatal(err)
	}
	script := regexp.MustCompile(`(?m)^release_public_key=.*$`).ReplaceAll(src, []byte("release_public_key="+pub))
	script = regexp.MustCompile(`(?m)^release_version=.*$`).ReplaceAll(script, []byte("release_version=1.0.0"))
	if !bytes.Contains(script, []byte("release_version=1.0.0\n")) {
		t.Fatal("scripts/install-svc.sh has no release_version= line")
	}
	scriptFile := filepath.Join(t.TempDir(), "install-svc.sh")
	if err := os.WriteFile(scriptFile, script, 0o644); err != nil {
		t.Fatal(err)
	}
	// A fake curl serves the directory named by $SITE_DIR as the site.
	fakes := t.TempDir()
	fake := "#!/bin/sh\nwhile [ $# -gt 2 ]; do shift; done\ncp \"$SITE_DIR/${2##*/}\" \"$1\" 2>/dev/null || exit 22\n"
	if err := os.WriteFile(filepath.Join(fakes, "curl"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	paths := []struct{ name, path string }{
		{"minisign", fakes + string(os.PathListSeparator) + os.Getenv("PATH")},
		{"OpenSSL", fakes + string(os.PathListSeparator) + pathWithout(t, "minisign", "curl")},
	}
	install := func(t *testing.T, path, site string, args ...string) (string, string, bool) {
		t.Helper()
		dir := filepath.Join(t.TempDir(), "bin")
		cmd := exec.CommandContext(t.Context(), "sh", append(append([]string{scriptFile, "--dir", dir}, args...), "https://adsnap.example")...)
		cmd.Env = append(os.Environ(), "PATH="+path, "SITE_DIR="+site, "SVC_SITE_URL=", "SVC_INSTALL_DIR=")
		out, err := cmd.CombinedOutput()
		return string(out), filepath.Join(dir, "svc"), err == nil
	}
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			for _, tc := range []struct {
				name, site string
				args       []string
				want       string // in the output; "" for success
			}{
				{"older release, no --version", old, nil, "ROLLBACK REFUSED: https://adsnap.example/developers offers svc 0.9.0, older than svc 1.0.0"},
				{"--version not the signed release", old, []string{"--version", "1.0.0"}, "signed for svc 0.9.0, not the 1.0.0 you asked for"},
				{"older release named", old, []string{"--version", "0.9.0"}, ""},
				{"the current release", current, nil, ""},
			} {
				out, svc, ok := install(t, p.path, tc.site, tc.args...)
				if !strings.Contains(out, "Verified the signature of SHA256SUMS with "+p.name) {
					t.Errorf("%s: the signature was not checked with %s:\n%s", tc.name, p.name, out)
				}
				if tc.want == "" {
					if !ok {
						t.Errorf("%s: refused:\n%s", tc.name, out)
					}
					continue
				}
				if ok || !strings.Contains(out, tc.want) || !strings.Contains(out, "nothing was installed") {
					t.Errorf("%s: ok=%v, want a refusal saying %q:\n%s", tc.name, ok, tc.want, out)
				}
				if _, err := os.Stat(svc); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s: svc was installed (%v)", tc.name, err)
				}
			}
		})
	}

	// svc verify of an svc 1.0.0.
	bin := filepath.Join(t.TempDir(), "svc")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin,
		"-ldflags", "-X github.com/adsnap/svc/svc-cli/internal/build.version=1.0.0", "./cmd/svc")
	build.Dir = filepath.Join(harness.RepoRoot(), "svc-cli")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build svc: %v\n%s", err, out)
	}
	archive := func(v string) string { return "svc-cli-" + v + "-" + runtime.GOOS + "-" + runtime.GOARCH + ".tgz" }
	for _, tc := range []struct {
		name, dir, file string
		args            []string
		code            int
		want            string
	}{
		{"older release", old, archive("0.9.0"), nil, 8, "SHA256SUMS is signed for svc 0.9.0, older than this svc (1.0.0)"},
		{"--version not the signed release", old, archive("0.9.0"), []string{"--version", "1.0.0"}, 8, "signed for svc 0.9.0, not the 1.0.0"},
		{"older release named", old, archive("0.9.0"), []string{"--version", "0.9.0"}, 0, archive("0.9.0") + ": OK"},
		{"the current release", current, archive("1.0.0"), nil, 0, archive("1.0.0") + ": OK"},
	} {
		out, code := svcVerify(t, bin, tc.dir, append(append([]string{"--public-key", pub}, tc.args...), tc.file)...)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("svc verify, %s: exit %d, want %d and %q:\n%s", tc.name, code, tc.code, tc.want, out)
		}
	}
}
