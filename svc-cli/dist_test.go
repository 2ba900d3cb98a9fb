package svccli_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// serveDownloads serves dir as the downloads directory of a real svc-api
// (`svc-api serve --downloads-dir DIR` on an embedded SQLite database) at
// {site}/developers/, and returns the site URL.
func serveDownloads(t *testing.T, dir string) string {
	t.Helper()
	tmp := t.TempDir()
	api := filepath.Join(tmp, "svc-api")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", api, "./cmd/svc-api")
	build.Dir = filepath.Join("..", "api-server")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build svc-api: %v\n%s", err, out)
	}
	db := "sqlite:" + filepath.Join(tmp, "svc.db")
	if out, err := exec.CommandContext(t.Context(), api, "migrate", "--database-url", db).CombinedOutput(); err != nil {
		t.Fatalf("svc-api migrate: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	serve := exec.Command(api, "serve", "--database-url", db, "--downloads-dir", dir, "--listen", addr)
	var logs bytes.Buffer
	serve.Stdout, serve.Stderr = &logs, &logs
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		serve.Process.Signal(os.Interrupt) //nolint:errcheck
		serve.Wait()                       //nolint:errcheck
	})
	site := "http://" + addr
	for deadline := time.Now().Add(20 * time.Second); ; {
		resp, err := http.Get(site + "/developers/")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && strings.Contains(string(body), "SHA256SUMS") {
				return site
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("svc-api did not serve %s/developers/ within 20 s: %v\n%s", site, err, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestDistribution builds the release with scripts/release-cli.sh, serves
// it, installs svc with scripts/install-svc.sh into a temporary prefix and
// runs it; then tampers with one byte of the archive and checks that the
// install is refused with nothing installed.
func TestDistribution(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		// make release-check runs the short tests, on svc-cli alone, without
		// the api-server and scripts/ this test uses; make test runs it.
		t.Skip("the distribution test does not run with -short")
	}
	if runtime.GOOS == "windows" {
		t.Skip("install-svc.sh is a POSIX shell script; the release is tested on Linux and macOS")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	dist := filepath.Join(tmp, "dist")

	// Build the release once.
	const version = "1.2.3"
	cmd := exec.CommandContext(t.Context(), filepath.Join(repo, "scripts", "release-cli.sh"), version)
	cmd.Env = append(os.Environ(), "DIST_DIR="+dist, "COMMIT=abc1234", "DATE=2026-11-20T00:00:00Z")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release-cli.sh: %v\n%s", err, out)
	}
	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range []string{"linux-amd64", "linux-arm64", "darwin-amd64", "darwin-arm64", "windows-amd64"} {
		name := "svc-cli-" + version + "-" + p + ".tgz"
		names = append(names, name)
		data, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if line := hex.EncodeToString(sum[:]) + "  " + name + "\n"; !bytes.Contains(sums, []byte(line)) {
			t.Errorf("SHA256SUMS lacks %q:\n%s", line, sums)
		}
		list, err := exec.Command("tar", "-tzf", filepath.Join(dist, name)).Output()
		if err != nil {
			t.Fatal(err)
		}
		exe := "svc"
		if strings.HasPrefix(p, "windows") {
			exe = "svc.exe"
		}
		if got, want := string(list), exe+"\nLICENSE\nREADME.md\n"; got != want {
			t.Errorf("%s holds %q, want %q", name, got, want)
		}
	}
	if n := bytes.Count(sums, []byte("\n")); n != len(names) {
		t.Errorf("SHA256SUMS has %d lines, want %d", n, len(names))
	}

	install := func(t *testing.T, site, prefix string) (string, error) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), "sh", filepath.Join(repo, "scripts", "install-svc.sh"), "--prefix", prefix)
		cmd.Env = append(os.Environ(), "SVC_SITE_URL="+site, "HOME="+tmp)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	// Install and run the installed svc.
	site := serveDownloads(t, dist)
	prefix := filepath.Join(tmp, "good", "bin")
	out, err := install(t, site, prefix)
	if err != nil {
		t.Fatalf("install-svc.sh: %v\n%s", err, out)
	}
	for _, want := range []string{
		"Verified SHA-256 of svc-cli-1.2.3-",
		"an integrity check against corruption, not a signature",
		"Installed svc 1.2.3 to " + filepath.Join(prefix, "svc"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("install output lacks %q:\n%s", want, out)
		}
	}
	help, err := exec.Command(filepath.Join(prefix, "svc"), "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(help), "Exit codes:") {
		t.Errorf("installed svc --help: %v\n%s", err, help)
	}
	ver, err := exec.Command(filepath.Join(prefix, "svc"), "version").CombinedOutput()
	if want := "svc 1.2.3 (commit abc1234, built 2026-11-20T00:00:00Z)\nsite: https://adsnap.example "; err != nil || !strings.HasPrefix(string(ver), want) {
		t.Errorf("installed svc version = %q, %v; want prefix %q", ver, err, want)
	}
	entries, _ := os.ReadDir(prefix)
	if len(entries) != 1 {
		t.Errorf("prefix holds %d entries, want only svc: %v", len(entries), entries)
	}
	installed, err := os.ReadFile(filepath.Join(prefix, "svc"))
	if err != nil {
		t.Fatal(err)
	}

	// Tamper with one byte of this platform's archive, keep SHA256SUMS.
	bad := filepath.Join(tmp, "bad")
	if err := os.CopyFS(bad, os.DirFS(dist)); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(bad, "svc-cli-"+version+"-"+runtime.GOOS+"-"+runtime.GOARCH+".tgz")
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x01
	if err := os.WriteFile(archive, data, 0o644); err != nil {
		t.Fatal(err)
	}
	badSite := serveDownloads(t, bad)

	// Into a new prefix: refused, and the prefix is not even created.
	freshPrefix := filepath.Join(tmp, "fresh", "bin")
	out, err = install(t, badSite, freshPrefix)
	if err == nil {
		t.Fatalf("install of a tampered archive succeeded:\n%s", out)
	}
	for _, want := range []string{"SHA-256 MISMATCH for svc-cli-1.2.3-", "nothing was installed"} {
		if !strings.Contains(out, want) {
			t.Errorf("refusal lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Verified") || strings.Contains(out, "Installed") {
		t.Errorf("refusal claims success:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(tmp, "fresh")); !os.IsNotExist(err) {
		t.Errorf("the refused install created %s (err %v)", freshPrefix, err)
	}

	// Over the good install: refused, and the installed svc is untouched.
	if out, err = install(t, badSite, prefix); err == nil {
		t.Fatalf("install of a tampered archive succeeded:\n%s", out)
	}
	after, err := os.ReadFile(filepath.Join(prefix, "svc"))
	if err != nil || !bytes.Equal(after, installed) {
		t.Errorf("the refused install changed %s (err %v)", filepath.Join(prefix, "svc"), err)
	}
	if entries, _ := os.ReadDir(prefix); len(entries) != 1 {
		t.Errorf("the refused install left files in the prefix: %v", entries)
	}

	// Plain http to a host that is not loopback is refused outright.
	if out, err = install(t, "http://adsnap.example", filepath.Join(tmp, "http", "bin")); err == nil ||
		!strings.Contains(out, "refusing plain http to a host that is not loopback") {
		t.Errorf("install over plain http: %v\n%s", err, out)
	}
}
