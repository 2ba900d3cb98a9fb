package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adsnap/svc/e2e/internal/harness"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

const releaseVersion = "1.0.0"

// distDir holds the pinned Node.js 22 (npm package node) and MCP Bundle CLI
// (@anthropic-ai/mcpb) of this scenario: e2e/js/dist/package-lock.json.
func distDir() string { return filepath.Join(harness.RepoRoot(), "e2e", "js", "dist") }

// distTools installs the pinned tools once (npm ci) and returns the
// directory holding Node.js 22's node, and the mcpb command.
func distTools(t *testing.T) (nodeBin, mcpbCmd string) {
	t.Helper()
	dir := distDir()
	nodeBin = filepath.Join(dir, "node_modules", "node", "bin")
	mcpbCmd = filepath.Join(dir, "node_modules", ".bin", "mcpb")
	_, errNode := os.Stat(filepath.Join(nodeBin, "node"))
	_, errMcpb := os.Stat(mcpbCmd)
	if errNode != nil || errMcpb != nil {
		if _, err := exec.LookPath("npm"); err != nil {
			t.Fatal("npm is not installed: the distribution scenario installs Node.js 22 and @anthropic-ai/mcpb with it (apt-get install nodejs npm)")
		}
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in e2e/js/dist: %v\n%s", err, out)
		}
	}
	out, err := exec.Command(filepath.Join(nodeBin, "node"), "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "v22.") {
		t.Fatalf("e2e/js/dist's node is %q (%v), want v22", out, err)
	}
	return nodeBin, mcpbCmd
}

func sortedStrings(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// withNode22 returns the environment with Node.js 22 first on PATH.
func withNode22(nodeBin string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	return append(append(env, "PATH="+nodeBin+string(os.PathListSeparator)+os.Getenv("PATH")), extra...)
}

func sha256File(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// release runs scripts/release-cli.sh for this machine's platform into dir,
// signing with keys.
func release(t *testing.T, dir, site string, keys *releaseKeys) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), filepath.Join(harness.RepoRoot(), "scripts", "release-cli.sh"), releaseVersion)
	cmd.Env = append(append(os.Environ(), keys.env()...), "DIST_DIR="+dir, "SITE_URL="+site, "PLATFORMS="+runtime.GOOS+"/"+runtime.GOARCH)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release-cli.sh: %v\n%s", err, out)
	}
}

// download fetches site/developers/name into dir.
func download(t *testing.T, site, name, dir string) {
	t.Helper()
	resp, err := http.Get(site + "/developers/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s/developers/%s: %d %v", site, name, resp.StatusCode, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// sha256Check runs the per-file check line the README and the index page show.
func sha256Check(t *testing.T, dir, name string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "sh", "-c", `grep " `+name+`$" SHA256SUMS | sha256sum -c -`)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// testDistribution releases svc for this platform into the replicas'
// downloads directory (the first replica as the built-in site), signed with
// throwaway keys made for this run, and installs it each way a user would:
// the install script piped from curl, the npm package with Node.js 22, the
// MCP Bundle; it checks the signature, the SBOM and the provenance through
// the /developers/ of a demo serving the release; then the tampered cases.
func testDistribution(t *testing.T, e *env) {
	start := time.Now()
	defer func() { t.Logf("distribution scenario: %.1f s", time.Since(start).Seconds()) }()
	site := e.replicas[0].URL
	keys := newReleaseKeys(t)
	release(t, e.downloads, site, keys)
	plat := runtime.GOOS + "-" + runtime.GOARCH
	archive := "svc-cli-" + releaseVersion + "-" + plat + ".tgz"
	npmPkg := "svc-cli-" + releaseVersion + ".tgz"
	bundle := "svc-mcp-" + releaseVersion + "-" + plat + ".mcpb"
	files := signedFiles(plat)
	sort.Strings(files)

	t.Run("Release", func(t *testing.T) {
		entries, err := os.ReadDir(e.downloads)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, de := range entries {
			got = append(got, de.Name())
		}
		if want := append(slices.Clone(files), "SHA256SUMS", "SHA256SUMS.minisig"); !cmp.Equal(got, sortedCopy(want)) {
			t.Errorf("dist holds %v, want %v", got, sortedCopy(want))
		}
		var want strings.Builder
		for _, f := range files {
			fmt.Fprintf(&want, "%s  %s\n", sha256File(t, filepath.Join(e.downloads, f)), f)
		}
		sums, err := os.ReadFile(filepath.Join(e.downloads, "SHA256SUMS"))
		if err != nil || string(sums) != want.String() {
			t.Errorf("SHA256SUMS (%v):\n%s\nwant:\n%s", err, sums, want.String())
		}
		// The signature verifies with Debian's minisign.
		if out, err := minisignVerify(t, e.downloads, keys.pub); err != nil || !strings.Contains(out, "svc-cli "+releaseVersion) {
			t.Errorf("minisign -V: %v\n%s", err, out)
		}
		// Byte-reproducible: a second run with the same keys gives the same
		// SHA256SUMS and signature.
		again := t.TempDir()
		release(t, again, site, keys)
		if sums2, _ := os.ReadFile(filepath.Join(again, "SHA256SUMS")); !bytes.Equal(sums, sums2) {
			t.Errorf("two release runs differ:\n%s\n%s", sums, sums2)
		}
		sig, _ := os.ReadFile(filepath.Join(e.downloads, "SHA256SUMS.minisig"))
		if sig2, err := os.ReadFile(filepath.Join(again, "SHA256SUMS.minisig")); err != nil || len(sig) == 0 || !bytes.Equal(sig, sig2) {
			t.Errorf("two release runs give different signatures (%v):\n%s\n%s", err, sig, sig2)
		}
		// The release names its key where install-svc.sh reads it.
		if script, _ := os.ReadFile(filepath.Join(e.downloads, "install-svc.sh")); !strings.Contains(string(script), "\nrelease_public_key="+keys.pub+"\n") {
			t.Errorf("install-svc.sh does not name the release key %s", keys.pub)
		}
		exe := "svc"
		if runtime.GOOS == "windows" {
			exe = "svc.exe"
		}
		for name, wantList := range map[string]string{
			archive: "LICENSE\nREADME.md\n" + exe + "\n",
			npmPkg: "package/LICENSE\npackage/README.md\npackage/bin/\npackage/bin/svc.js\npackage/package.json\n" +
				"package/platforms/\npackage/platforms/" + plat + "/\npackage/platforms/" + plat + "/" + exe + "\n",
		} {
			list, err := exec.Command("tar", "-tzf", filepath.Join(e.downloads, name)).Output()
			if err != nil || string(list) != wantList {
				t.Errorf("%s holds %q (%v), want %q", name, list, err, wantList)
			}
		}
		var pkg map[string]any
		out, err := exec.Command("tar", "-xzOf", filepath.Join(e.downloads, npmPkg), "package/package.json").Output()
		if err != nil || json.Unmarshal(out, &pkg) != nil {
			t.Fatalf("package.json: %v\n%s", err, out)
		}
		if pkg["name"] != "svc-cli" || pkg["version"] != releaseVersion || !cmp.Equal(pkg["bin"], map[string]any{"svc": "bin/svc.js"}) ||
			!cmp.Equal(pkg["engines"], map[string]any{"node": ">=22"}) || pkg["dependencies"] != nil || pkg["scripts"] != nil {
			t.Errorf("package.json: %v", pkg)
		}
	})

	t.Run("Index", func(t *testing.T) {
		other := e.replicas[1].URL
		resp, body := e.get(t, harness.ClientFrom("127.0.0.15"), other+"/developers/", "")
		page := html.UnescapeString(string(body))
		if resp.StatusCode != 200 {
			t.Fatalf("/developers/: %d %.300s", resp.StatusCode, body)
		}
		served := t.TempDir()
		for _, f := range append(slices.Clone(files), "SHA256SUMS.minisig") {
			// As served: the release's own bytes (it is signed).
			download(t, other, f, served)
			if data, _ := os.ReadFile(filepath.Join(served, f)); sha256File(t, filepath.Join(served, f)) != sha256File(t, filepath.Join(e.downloads, f)) {
				t.Errorf("%s from %s differs from the signed release:\n%.300s", f, other, data)
			}
			info, _ := os.Stat(filepath.Join(served, f))
			for _, want := range []string{`href="` + f + `"`, fmt.Sprint(info.Size()), sha256File(t, filepath.Join(served, f))} {
				if !strings.Contains(page, want) {
					t.Errorf("index lacks %q for %s", want, f)
				}
			}
		}
		for _, want := range []string{
			"curl -fsSL " + other + `/developers/install-svc.sh | sh -s -- --dir "$HOME/.local/bin"`,
			`grep " install-svc.sh$" SHA256SUMS | sha256sum -c -`,
			`grep " ` + npmPkg + `$" SHA256SUMS | sha256sum -c -` + "\nnpm install -g ./" + npmPkg,
			"go install github.com/adsnap/svc/svc-cli/cmd/svc@v" + releaseVersion,
			`grep " svc-mcp-` + releaseVersion + `-`,
			// The new files, each with the command that checks it.
			"The release public key is <code>" + keys.pub + "</code>",
			"curl -fsSLO " + other + "/developers/SHA256SUMS\ncurl -fsSLO " + other + "/developers/SHA256SUMS.minisig\nminisign -Vm SHA256SUMS -P " + keys.pub,
			"<code>svc verify FILE…</code>",
			`<a href="svc-cli-` + releaseVersion + `-` + plat + `.cdx.json">`,
			`<code>grep " svc-cli-` + releaseVersion + `-` + plat + `.cdx.json$" SHA256SUMS | sha256sum -c -</code>`,
			`jq -r '.subject[] | "\(.digest.sha256)  \(.name)"' svc-cli-` + releaseVersion + `.intoto.json | sha256sum -c --ignore-missing -`,
			"<code>mcpb verify FILE</code>",
		} {
			if !strings.Contains(page, want) {
				t.Errorf("index lacks %q:\n%s", want, page)
			}
		}
	})

	installed := filepath.Join(t.TempDir(), "bin", "svc")
	t.Run("InstallScript", func(t *testing.T) {
		// The per-file check line works on one downloaded archive.
		dl := t.TempDir()
		download(t, site, archive, dl)
		download(t, site, "SHA256SUMS", dl)
		if out, err := sha256Check(t, dl, archive); err != nil || !strings.Contains(out, archive+": OK") {
			t.Errorf("per-file sha256sum -c: %v\n%s", err, out)
		}
		// The script as served by the second replica is the signed one,
		// which installs from the site the release was built for (the first).
		other := e.replicas[1].URL
		dl = t.TempDir()
		download(t, other, "install-svc.sh", dl)
		download(t, other, "SHA256SUMS", dl)
		if out, err := sha256Check(t, dl, "install-svc.sh"); err != nil {
			t.Errorf("sha256sum -c install-svc.sh from the second replica: %v\n%s", err, out)
		}
		if script, _ := os.ReadFile(filepath.Join(dl, "install-svc.sh")); !strings.Contains(string(script), "\ndefault_site="+site+"\n") {
			t.Errorf("install-svc.sh from %s does not default to the release's site %s", other, site)
		}
		// Piped from curl, from the second replica: minisign checks the signature.
		dir := filepath.Dir(installed)
		cmd := exec.CommandContext(t.Context(), "sh", "-c", `curl -fsSL "$1/developers/install-svc.sh" | sh -s -- --dir "$2"`, "sh", other, dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("curl | sh: %v\n%s", err, out)
		}
		for _, want := range []string{
			"Verified the signature of SHA256SUMS with minisign: signed by the release key " + keys.pub,
			"Verified SHA-256 of " + archive + " against the signed SHA256SUMS",
			"Installed svc " + releaseVersion + " to " + filepath.Join(dir, "svc"),
		} {
			if !strings.Contains(string(out), want) {
				t.Errorf("install output lacks %q:\n%s", want, out)
			}
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("--dir holds %v, want only svc", entries)
		}
		stdout, stderr, code, err := harness.Run(t.Context(), installed, nil, "", "--help")
		if err != nil || code != 0 || !strings.Contains(stdout+stderr, "Exit codes:") {
			t.Errorf("installed svc --help: exit %d %v\n%s%s", code, err, stdout, stderr)
		}
		// The built-in site is the first replica; SVC_SITE_URL points at the second.
		for _, base := range []string{"", e.replicas[1].URL} {
			env := []string{"SVC_API_KEY=" + e.keys["alpha_aci"], "SVC_SITE_URL=" + base}
			stdout, stderr, code, err := harness.Run(t.Context(), installed, env, "", "accounts", "-o", "json")
			e.rec.add("installed svc", stdout+stderr)
			if err != nil || code != 0 || !strings.Contains(stdout, "acc_alpha_eur") {
				t.Errorf("installed svc (site %q): exit %d %v\n%s\n%s", base, code, err, stdout, stderr)
			}
		}
	})

	// Through the /developers/ of a demo serving the release (svc-api demo
	// --downloads-dir, the README's way): the signature with minisign, the
	// installer with minisign, with OpenSSL alone and with neither, and
	// svc verify.
	demo := e.startDemo(t, e.downloads)
	t.Run("Signature", func(t *testing.T) {
		if _, err := os.Stat(installed); err != nil {
			t.Fatalf("needs InstallScript: %v", err)
		}
		dl := t.TempDir()
		for _, f := range []string{"SHA256SUMS", "SHA256SUMS.minisig", archive, npmPkg, bundle} {
			download(t, demo, f, dl)
		}
		if out, err := minisignVerify(t, dl, keys.pub); err != nil || !strings.Contains(out, "Signature and comment signature verified") {
			t.Errorf("minisign -V of the demo's SHA256SUMS: %v\n%s", err, out)
		}
		// svc verify of the installed svc trusts the key the release was
		// signed with (built in); the suite's svc, with the project's key
		// built in, needs --public-key.
		out, code := svcVerify(t, installed, dl, archive, npmPkg, bundle)
		if code != 0 || !strings.Contains(out, "SHA256SUMS: signature OK") || !strings.Contains(out, archive+": OK") || !strings.Contains(out, bundle+": OK") {
			t.Errorf("installed svc verify: exit %d\n%s", code, out)
		}
		e.rec.add("svc verify", out)
		if out, code := svcVerify(t, e.bin.CLI, dl, "--public-key", keys.pub, archive); code != 0 || !strings.Contains(out, archive+": OK") {
			t.Errorf("svc verify --public-key: exit %d\n%s", code, out)
		}
		if out, code := svcVerify(t, e.bin.CLI, dl, archive); code != 8 || !strings.Contains(out, "was made by another key") {
			t.Errorf("svc verify with the project's key of a throwaway-key release: exit %d, want 8\n%s", code, out)
		}
		// OpenSSL alone (no minisign on PATH) checks the signature too.
		dir := filepath.Join(t.TempDir(), "bin")
		out, ok := runInstaller(t, demo, pathWithout(t, "minisign"), dir)
		if !ok || !strings.Contains(out, "Verified the signature of SHA256SUMS with OpenSSL") || !strings.Contains(out, "Installed svc "+releaseVersion) {
			t.Errorf("install with OpenSSL alone: ok=%v\n%s", ok, out)
		}
		// Neither: refused, unless --insecure-skip-signature, which says so.
		neither := pathWithout(t, "minisign", "openssl")
		dir = filepath.Join(t.TempDir(), "bin")
		out, ok = runInstaller(t, demo, neither, dir)
		if ok || !strings.Contains(out, "neither minisign nor OpenSSL 3 is installed; nothing was installed") {
			t.Errorf("install with neither tool: ok=%v\n%s", ok, out)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the refused install created %s (%v)", dir, err)
		}
		out, ok = runInstaller(t, demo, neither, dir, "--insecure-skip-signature")
		if !ok || !strings.Contains(out, "WARNING: --insecure-skip-signature: the signature of SHA256SUMS is NOT checked") ||
			!strings.Contains(out, "not a signature") || !strings.Contains(out, "Installed svc "+releaseVersion) {
			t.Errorf("install with --insecure-skip-signature: ok=%v\n%s", ok, out)
		}
		// Plain http to a host that is not loopback is refused outright.
		cmd := exec.CommandContext(t.Context(), "sh", filepath.Join(e.downloads, "install-svc.sh"), "--dir", t.TempDir(), "http://adsnap.example")
		if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "refusing plain http to a host that is not loopback") {
			t.Errorf("install over plain http: %v\n%s", err, out)
		}
	})

	t.Run("Tampered", func(t *testing.T) {
		if _, err := os.Stat(installed); err != nil {
			t.Fatalf("needs InstallScript: %v", err)
		}
		testTamperedRelease(t, e, keys, installed)
	})

	t.Run("SBOM", func(t *testing.T) { testSBOM(t, e, demo) })
	t.Run("Provenance", func(t *testing.T) { testProvenance(t, e, demo) })

	nodeBin, mcpbCmd := distTools(t)

	t.Run("NPM", func(t *testing.T) {
		dl := t.TempDir()
		download(t, site, npmPkg, dl)
		download(t, site, "SHA256SUMS", dl)
		if out, err := sha256Check(t, dl, npmPkg); err != nil {
			t.Fatalf("sha256sum -c %s: %v\n%s", npmPkg, err, out)
		}
		prefix := t.TempDir()
		cmd := exec.CommandContext(t.Context(), "npm", "install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", "./"+npmPkg)
		cmd.Dir = dl
		cmd.Env = withNode22(nodeBin, "npm_config_engine_strict=true", "npm_config_ignore_scripts=true")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm install -g: %v\n%s", err, out)
		}
		svc := filepath.Join(prefix, "bin", "svc")
		run := func(stdin string, extra []string, args ...string) (string, string, int) {
			t.Helper()
			c := exec.CommandContext(t.Context(), svc, args...)
			c.Env = withNode22(nodeBin, extra...)
			c.Stdin = strings.NewReader(stdin)
			var o, e2 bytes.Buffer
			c.Stdout, c.Stderr = &o, &e2
			err := c.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			e.rec.add("npm svc", o.String()+e2.String())
			return o.String(), e2.String(), code
		}
		if out, errOut, code := run("", nil, "--help"); code != 0 || !strings.Contains(out, "Exit codes:") {
			t.Errorf("svc --help: exit %d\n%s%s", code, out, errOut)
		}
		keyEnv := []string{"SVC_API_KEY=" + e.keys["alpha_aci"], "SVC_SITE_URL=" + e.replicas[1].URL}
		if out, errOut, code := run("", keyEnv, "accounts", "-o", "json"); code != 0 || !strings.Contains(out, "acc_alpha_eur") {
			t.Errorf("svc accounts: exit %d\n%s%s", code, out, errOut)
		}
		// Standard input and the exit code go through: the key on stdin; a
		// foreign account is 404, exit 4.
		if out, errOut, code := run(e.keys["alpha_aci"]+"\n", []string{"SVC_SITE_URL=" + site}, "accounts", "--key-stdin", "-o", "json"); code != 0 || !strings.Contains(out, "acc_alpha_eur") {
			t.Errorf("svc accounts --key-stdin: exit %d\n%s%s", code, out, errOut)
		}
		if _, errOut, code := run("", keyEnv, "campaigns", "--accountId", "acc_beta_jpy"); code != 4 {
			t.Errorf("svc campaigns --accountId foreign: exit %d, want 4\n%s", code, errOut)
		}

		// A full MCP session through the npm-installed svc mcp.
		cmd = exec.Command(svc, "mcp")
		cmd.Env = withNode22(nodeBin, keyEnv...)
		mcpSession(t, e, cmd)

		// Signals: SIGTERM to the launcher reaches svc, which stops, and the
		// launcher ends too. svc killed by a signal: so is the launcher.
		if runtime.GOOS == "linux" { // the check reads /proc
			for _, tc := range []struct {
				name   string
				signal func(launcher, child int) error
				check  func(ps *os.ProcessState) bool
			}{
				// svc stops on SIGTERM, by an exit code or by the signal;
				// the launcher ends the same way.
				{"SIGTERM to the launcher", func(l, _ int) error { return syscall.Kill(l, syscall.SIGTERM) },
					func(ps *os.ProcessState) bool {
						ws, ok := ps.Sys().(syscall.WaitStatus)
						return ps.Exited() || ok && ws.Signaled() && ws.Signal() == syscall.SIGTERM
					}},
				{"SIGKILL to svc", func(_, c int) error { return syscall.Kill(c, syscall.SIGKILL) },
					func(ps *os.ProcessState) bool {
						ws, ok := ps.Sys().(syscall.WaitStatus)
						return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
					}},
			} {
				c := exec.Command(svc, "mcp")
				c.Env = withNode22(nodeBin, keyEnv...)
				stdin, _ := c.StdinPipe()
				var errOut harness.SyncBuffer
				c.Stderr = &errOut
				if err := c.Start(); err != nil {
					t.Fatal(err)
				}
				child := waitChild(c.Process.Pid, 10*time.Second)
				if child == 0 {
					c.Process.Kill() //nolint:errcheck
					c.Wait()         //nolint:errcheck
					t.Fatalf("%s: the launcher started no svc within 10 s\n%s", tc.name, errOut.String())
				}
				if err := tc.signal(c.Process.Pid, child); err != nil {
					t.Fatal(err)
				}
				done := make(chan struct{})
				go func() { c.Wait(); close(done) }() //nolint:errcheck
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					c.Process.Kill() //nolint:errcheck
					<-done
					t.Errorf("%s: the launcher did not end within 10 s", tc.name)
				}
				stdin.Close()
				if !tc.check(c.ProcessState) {
					t.Errorf("%s: launcher ended with %v\n%s", tc.name, c.ProcessState, errOut.String())
				}
				if alive(child) {
					syscall.Kill(child, syscall.SIGKILL) //nolint:errcheck
					t.Errorf("%s: svc (pid %d) still runs after the launcher ended", tc.name, child)
				}
			}
		}

		// No binary for this platform: a clear message on stderr, nothing on stdout.
		pkgDir := filepath.Join(prefix, "lib", "node_modules", "svc-cli", "platforms")
		if err := os.Rename(filepath.Join(pkgDir, plat), filepath.Join(pkgDir, "plan9-amd64")); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := run("", nil, "--help")
		if code != 1 || out != "" || !strings.Contains(errOut, "this package has no svc binary for") || !strings.Contains(errOut, "it has: plan9-amd64") {
			t.Errorf("no binary for the platform: exit %d, stdout %q, stderr %q", code, out, errOut)
		}
	})

	t.Run("MCPB", func(t *testing.T) {
		for _, f := range files {
			if !strings.HasSuffix(f, ".mcpb") {
				continue
			}
			dir := filepath.Join(t.TempDir(), "bundle")
			for _, args := range [][]string{{"unpack", filepath.Join(e.downloads, f), dir}, {"validate", filepath.Join(dir, "manifest.json")}} {
				cmd := exec.CommandContext(t.Context(), mcpbCmd, args...)
				cmd.Env = withNode22(nodeBin)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("mcpb %s: %v\n%s", args[0], err, out)
				}
			}
			var m struct {
				Server struct {
					Type      string `json:"type"`
					MCPConfig struct {
						Command string            `json:"command"`
						Args    []string          `json:"args"`
						Env     map[string]string `json:"env"`
					} `json:"mcp_config"`
				} `json:"server"`
				Tools      []struct{ Name string } `json:"tools"`
				UserConfig map[string]struct {
					Type      string `json:"type"`
					Sensitive bool   `json:"sensitive"`
					Default   string `json:"default"`
				} `json:"user_config"`
			}
			data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
			if err != nil || json.Unmarshal(data, &m) != nil {
				t.Fatalf("manifest.json: %v\n%s", err, data)
			}
			var tools []string
			for _, tool := range m.Tools {
				tools = append(tools, tool.Name)
			}
			mc := m.Server.MCPConfig
			if m.Server.Type != "binary" || !cmp.Equal(mc.Args, []string{"mcp"}) || !cmp.Equal(sortedStrings(tools), mcpTools) ||
				mc.Env["SVC_API_KEY"] != "${user_config.api_key}" || !m.UserConfig["api_key"].Sensitive ||
				mc.Env["SVC_SITE_URL"] != "${user_config.site_url}" || m.UserConfig["site_url"].Default != site {
				t.Errorf("%s manifest: %s", f, data)
			}
			// Start mcp_config's command as a host does: ${__dirname} is the
			// bundle's directory, the user_config values in the environment.
			cmd := exec.Command(strings.ReplaceAll(mc.Command, "${__dirname}", dir), mc.Args...)
			cmd.Env = append(os.Environ(), "SVC_API_KEY="+e.keys["alpha_aci"], "SVC_SITE_URL="+e.replicas[1].URL)
			mcpSession(t, e, cmd)
		}
		testBundleSignatures(t, e, keys, mcpbCmd, nodeBin)
	})

	t.Run("ServerJSON", func(t *testing.T) {
		schemaFile := registrySchema(t)
		c := jsonschema.NewCompiler()
		schema, err := c.Compile(schemaFile)
		if err != nil {
			t.Fatalf("compile %s: %v", schemaFile, err)
		}
		data, err := os.ReadFile(filepath.Join(e.downloads, "server.json"))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(doc); err != nil {
			t.Errorf("server.json does not validate against the MCP registry schema: %v\n%s", err, data)
		}
		var sj struct {
			Name     string
			Version  string
			Packages []struct {
				RegistryType, Identifier, FileSha256 string
			}
		}
		if err := json.Unmarshal(data, &sj); err != nil {
			t.Fatal(err)
		}
		if sj.Version != releaseVersion || sj.Name != "1.0.0.127/svc-mcp" || len(sj.Packages) != 1 ||
			sj.Packages[0].RegistryType != "mcpb" || sj.Packages[0].Identifier != site+"/developers/"+bundle ||
			sj.Packages[0].FileSha256 != sha256File(t, filepath.Join(e.downloads, bundle)) {
			t.Errorf("server.json: %+v", sj)
		}
	})
}

// registrySchema returns the path of the MCP registry's published
// server.json schema (2025-12-11, the $schema of our server.json) as the
// registry's own Go module embeds it, downloaded through the Go module proxy
// and checked against the Go checksum database: the schema is used where
// its authors publish it, rather than copied into this repository.
func registrySchema(t *testing.T) string {
	t.Helper()
	const module = "github.com/modelcontextprotocol/registry@v1.8.8"
	cmd := exec.CommandContext(t.Context(), "go", "mod", "download", "-json", module)
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	cmd.Dir = os.TempDir()
	out, err := cmd.Output()
	var dl struct{ Dir, Error string }
	if err != nil || json.Unmarshal(out, &dl) != nil || dl.Dir == "" {
		t.Fatalf("go mod download %s (the MCP registry's schema; needs the Go module proxy): %v %s\n%s", module, err, dl.Error, out)
	}
	return filepath.Join(dl.Dir, "internal", "validators", "schemas", "2025-12-11.json")
}

// mcpSession connects the go-sdk client to cmd (svc mcp, however started),
// checks the protocol version and the three tools, and that svc_accounts
// returns the organization's accounts.
func mcpSession(t *testing.T, e *env, cmd *exec.Cmd) {
	t.Helper()
	stderr := &harness.SyncBuffer{}
	cmd.Stderr = stderr
	messages := &harness.SyncBuffer{}
	client := mcp.NewClient(&mcp.Implementation{Name: "svc-e2e-dist", Version: "1.0.0"}, nil)
	session, err := client.Connect(t.Context(), &mcp.LoggingTransport{Transport: &mcp.CommandTransport{Command: cmd}, Writer: messages}, nil)
	if err != nil {
		t.Fatalf("connect to %s: %v\n%s", cmd.Path, err, stderr)
	}
	defer func() {
		session.Close()
		e.rec.add("mcp messages (distribution)", messages.String())
		e.rec.add("svc mcp stderr (distribution)", stderr.String())
	}()
	if v := session.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Errorf("negotiated protocol %q, want 2026-07-28", v)
	}
	tools, err := session.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, mcpTools) {
		t.Errorf("tools %v", names)
	}
	res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "svc_accounts", Arguments: map[string]any{"limit": 10}})
	if err != nil || res.IsError {
		t.Fatalf("svc_accounts: %v %+v", err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var sc map[string]any
	json.Unmarshal(raw, &sc) //nolint:errcheck
	if diff := cmp.Diff(e.fix.ExpectedAccounts(harness.OrgAlpha), tableRows(t, sc)); diff != "" {
		t.Errorf("svc_accounts structuredContent differs from the document (-want +got):\n%s", diff)
	}
}

// waitChild returns the pid of the process whose parent is pid and whose
// executable is a bundled svc (Linux /proc), waiting up to d.
func waitChild(pid int, d time.Duration) int {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		procs, _ := os.ReadDir("/proc")
		for _, p := range procs {
			var child int
			if _, err := fmt.Sscan(p.Name(), &child); err != nil {
				continue
			}
			data, err := os.ReadFile("/proc/" + p.Name() + "/stat")
			if err != nil {
				continue
			}
			_, rest, _ := strings.Cut(string(data), ") ")
			var state string
			var ppid int
			if _, err := fmt.Sscan(rest, &state, &ppid); err != nil || ppid != pid {
				continue
			}
			if exe, _ := os.Readlink("/proc/" + p.Name() + "/exe"); strings.Contains(exe, "platforms") {
				return child
			}
		}
	}
	return 0
}

// alive reports whether pid still runs (and is not a zombie).
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(data), ") ")
	return !strings.HasPrefix(rest, "Z")
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}
