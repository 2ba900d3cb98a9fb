package e2e

// The released modules as a user outside this repository gets them: a module
// proxy directory built from the tree (make proxy), GOWORK=off, and the `go
// get` / `go install` lines of the README's "Use from Go".

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// moduleKey is a well-formed key (svc_live_ + 37 characters + checksum), as
// in sdk-go's tests; the test servers below accept only it.
const moduleKey = "svc_live_00000000000000000000000000000000000001w1XY4"

// repoRoot is the repository holding this module.
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

var versionLine = regexp.MustCompile(`(?m)^  ([a-z0-9-]+): (v[0-9]+\.[0-9]+\.[0-9]+)$`)

// moduleVersions reads versions.yaml: module directory → version.
func moduleVersions(t testing.TB, root string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "versions.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	vs := map[string]string{}
	for _, m := range versionLine.FindAllStringSubmatch(string(data), -1) {
		vs[m[1]] = m[2]
	}
	for _, m := range []string{"keys-admin", "api-server", "sdk-go", "svc-mcp", "svc-cli"} {
		if vs[m] == "" {
			t.Fatalf("versions.yaml names no version for %s", m)
		}
	}
	return vs
}

// goEnv is the environment of a user outside the repository: no workspace,
// this repository's modules from proxy (their versions from nowhere else),
// the others from the machine's module cache or the usual proxy, and a module
// cache of its own so that no copy cached from another build is used.
func goEnv(t testing.TB, proxy, modcache string, extra ...string) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE", "GOPROXY").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var usual []string
	for _, p := range strings.Split(lines[1], ",") {
		if !strings.HasPrefix(p, "file://") {
			usual = append(usual, p)
		}
	}
	env := []string{
		"GOWORK=off",
		"GOPROXY=file://" + proxy + ",file://" + filepath.Join(lines[0], "cache", "download") + "," + strings.Join(usual, ","),
		"GONOSUMDB=github.com/adsnap",
		"GOMODCACHE=" + modcache,
		// -trimpath: compiled packages do not depend on where the module
		// cache is, so the build cache serves them across runs.
		"GOFLAGS=-modcacherw -trimpath",
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GOWORK", "GOPROXY", "GONOSUMDB", "GOMODCACHE", "GOFLAGS", "GOBIN", "GOPATH":
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// run runs name args in dir and returns its combined output, failing the test
// when it fails.
func run(t testing.TB, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, err := runErr(dir, env, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

func runErr(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

var (
	proxyOnce sync.Once
	proxyDir  string
	modCache  string
	proxyErr  error
)

// sharedProxy builds the proxy directory once for the tests of this file;
// they also share one module cache.
func sharedProxy(t testing.TB) (proxy, modcache string) {
	t.Helper()
	proxyOnce.Do(func() {
		dir, err := os.MkdirTemp("", "svc-modules")
		if err != nil {
			proxyErr = err
			return
		}
		cleanups = append(cleanups, func() {
			// The module cache is read-only unless written with -modcacherw.
			exec.Command("chmod", "-R", "u+w", dir).Run() //nolint:errcheck
			os.RemoveAll(dir)
		})
		proxyDir, modCache = filepath.Join(dir, "proxy"), filepath.Join(dir, "modcache")
		cmd := exec.Command("make", "--no-print-directory", "proxy", "OUT="+proxyDir)
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			proxyErr = fmt.Errorf("make proxy: %v\n%s", err, out)
		}
	})
	if proxyErr != nil {
		t.Fatal(proxyErr)
	}
	return proxyDir, modCache
}

// useFromGo returns the `go get` and `go install` lines of the README's
// "Use from Go" section.
func useFromGo(t testing.TB, root string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Use from Go\n")
	if !ok {
		t.Fatal(`README.md has no "## Use from Go" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(section))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "go get ") || strings.HasPrefix(l, "go install ") || strings.HasPrefix(l, "go mod tidy") {
			l, _, _ = strings.Cut(l, "#")
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	return lines
}

// readmeLine returns the README line naming target (go get/go install), and
// checks that it names the version of versions.yaml.
func readmeLine(t testing.TB, lines []string, target, version string) []string {
	t.Helper()
	for _, l := range lines {
		f := strings.Fields(l)
		if path, v, ok := strings.Cut(f[len(f)-1], "@"); ok && path == target {
			if v != version {
				t.Fatalf("README: %q names %s, versions.yaml %s", l, v, version)
			}
			return f
		}
	}
	t.Fatalf("README's Use from Go has no go get/go install line for %s; lines: %q", target, lines)
	return nil
}

// accountsServer serves one page of two accounts to moduleKey.
func accountsServer(t testing.TB) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+moduleKey {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"statusCode":401,"message":"invalid key"}`)
			return
		}
		if r.URL.Path != "/api/v1/developer/accounts" {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"statusCode":404,"message":"not found"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"data":[
			{"id":"acc_1","accountName":"Acme EU","currency":"EUR","timezone":"Europe/Berlin","isActive":true,"lastSyncAt":"2026-11-20T06:00:00Z"},
			{"id":"acc_2","accountName":"Acme US","currency":"USD","timezone":"America/New_York","isActive":false,"lastSyncAt":null}
			],"meta":{"offset":0,"nextOffset":null,"source":"stored_snapshot","liveMetaRequest":false,"limit":50,"returned":2,`+
			`"generatedAt":"2026-11-20T10:00:00Z","dataAsOf":"2026-11-20T06:00:00Z","note":"Stored snapshot; may be stale."}}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// newUserModule makes a module outside the repository, runs the README's go
// get line for target in it, adds program as main.go and runs the README's go
// mod tidy.
func newUserModule(t *testing.T, env, lines []string, target, version, program string) string {
	t.Helper()
	dir := t.TempDir()
	run(t, dir, env, "go", "mod", "init", "example.com/tryout")
	get := readmeLine(t, lines, target, version)
	run(t, dir, env, get[0], get[1:]...)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(program), 0o644); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(lines, "go mod tidy") {
		t.Fatalf("README's Use from Go has no go mod tidy line; lines: %q", lines)
	}
	run(t, dir, env, "go", "mod", "tidy")
	if got := run(t, dir, env, "go", "list", "-m", target); strings.TrimSpace(got) != target+" "+version {
		t.Fatalf("go list -m %s: %q, want %s %s", target, got, target, version)
	}
	return dir
}

const sdkProgram = `package main

import (
	"context"
	"fmt"
	"log"
	"os"

	svc "github.com/adsnap/svc/sdk-go"
)

func main() {
	client, err := svc.NewClient(svc.WithAPIKeyFromEnv(), svc.WithSiteURL(os.Args[1]))
	if err != nil {
		log.Fatal(err)
	}
	page, err := client.Accounts.List(context.Background(), nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range page.Data {
		fmt.Printf("%s %s %s\n", a.ID, a.AccountName, a.Currency)
	}
	fmt.Println("sdk", svc.Version)
}
`

const keysProgram = `package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	keysadmin "github.com/adsnap/svc/keys-admin"
	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/database"
	"github.com/adsnap/svc/keys-admin/keys"
)

// A settings backend: its own organizations, keys-admin's keys on SQLite.
func main() {
	ctx := context.Background()
	db, err := database.Open(ctx, "sqlite:"+os.Args[1], database.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if _, err := keys.Migrate(ctx, db); err != nil {
		log.Fatal(err)
	}
	err = keys.UpsertOrganization(ctx, db,
		keys.Organization{ID: "org_a", Name: "Acme", SubscriptionStatus: keys.SubscriptionActive},
		[]keys.Member{{UserID: "u_owner", Role: keys.RoleOwner}}, time.Now())
	if err != nil {
		log.Fatal(err)
	}
	created, err := keys.NewManager(db).Create(ctx, keys.CreateRequest{
		OrganizationID: "org_a", UserID: "u_owner", Name: "nightly export",
		Scopes:        apikey.NewScopes(apikey.ScopeAccountsRead),
		ExpiresInDays: 30,
	})
	if err != nil {
		log.Fatal(err)
	}
	p, err := keys.NewAuthenticator(&database.DB{Bun: db}, keys.AuthenticatorOptions{}).Lookup(ctx, created.Key)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("created", created.State, created.Scopes, "valid:", apikey.Validate(created.Key) == nil, "organization:", p.OrganizationID)
	fmt.Println("keys-admin", keysadmin.Version)
}
`

// TestUseFromGo runs the README's `go get` and `go install` lines outside the
// repository, against the proxy directory, as a new user would.
func TestUseFromGo(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	vs := moduleVersions(t, root)
	proxy, modcache := sharedProxy(t)
	env := goEnv(t, proxy, modcache)
	lines := useFromGo(t, root)
	srv := accountsServer(t)

	t.Run("sdk-go", func(t *testing.T) {
		dir := newUserModule(t, env, lines, "github.com/adsnap/svc/sdk-go", vs["sdk-go"], sdkProgram)
		out := run(t, dir, append(env, "SVC_API_KEY="+moduleKey), "go", "run", ".", srv.URL)
		want := "acc_1 Acme EU EUR\nacc_2 Acme US USD\nsdk " + strings.TrimPrefix(vs["sdk-go"], "v") + "\n"
		if !strings.HasSuffix(out, want) {
			t.Errorf("program output %q, want it to end with %q", out, want)
		}
	})

	t.Run("keys-admin", func(t *testing.T) {
		dir := newUserModule(t, env, lines, "github.com/adsnap/svc/keys-admin", vs["keys-admin"], keysProgram)
		db := filepath.Join(t.TempDir(), "settings.db")
		out := run(t, dir, env, "go", "run", ".", db)
		want := "created active [accounts:read] valid: true organization: org_a\nkeys-admin " + strings.TrimPrefix(vs["keys-admin"], "v") + "\n"
		if !strings.HasSuffix(out, want) {
			t.Errorf("program output %q, want it to end with %q", out, want)
		}
		if fi, err := os.Stat(db); err != nil || fi.Size() == 0 {
			t.Errorf("the SQLite database was not written: %v", err)
		}
	})

	t.Run("svc", func(t *testing.T) {
		bin := t.TempDir()
		install := readmeLine(t, lines, "github.com/adsnap/svc/svc-cli/cmd/svc", vs["svc-cli"])
		run(t, t.TempDir(), append(env, "GOBIN="+bin), install[0], install[1:]...)
		svcBin := filepath.Join(bin, "svc")
		want := strings.TrimPrefix(vs["svc-cli"], "v")
		if out := run(t, t.TempDir(), nil, svcBin, "version"); !strings.HasPrefix(out, "svc "+want+" ") {
			t.Errorf("svc version: %q, want it to start with %q", out, "svc "+want+" ")
		}
		info := run(t, t.TempDir(), env, "go", "version", "-m", svcBin)
		if !regexp.MustCompile(`(?m)^\s+mod\s+github.com/adsnap/svc/svc-cli\s+` + regexp.QuoteMeta(vs["svc-cli"]) + `\s`).MatchString(info) {
			t.Errorf("go version -m: the binary's module is not svc-cli %s:\n%s", vs["svc-cli"], info)
		}
		out := run(t, t.TempDir(), []string{"SVC_API_KEY=" + moduleKey, "SVC_SITE_URL=" + srv.URL, "NO_COLOR=1", "HOME=" + t.TempDir()}, svcBin, "accounts")
		for _, name := range []string{"acc_1", "Acme EU", "acc_2", "Acme US"} {
			if !strings.Contains(out, name) {
				t.Errorf("svc accounts: %q lacks %q", out, name)
			}
		}
	})
}

// TestVersionConstants: each library's const Version is its versions.yaml
// version (make release updates both).
func TestVersionConstants(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	vs := moduleVersions(t, root)
	re := regexp.MustCompile(`(?m)^const Version = "([^"]+)"$`)
	for _, m := range []string{"sdk-go", "keys-admin", "svc-mcp"} {
		data, err := os.ReadFile(filepath.Join(root, m, "version.go"))
		if err != nil {
			t.Fatal(err)
		}
		got := re.FindSubmatch(data)
		if got == nil {
			t.Errorf("%s/version.go has no `const Version = \"…\"`", m)
			continue
		}
		if "v"+string(got[1]) != vs[m] {
			t.Errorf("%s: const Version %q, versions.yaml %s", m, got[1], vs[m])
		}
	}
}

// TestReleaseCheck releases sdk-go twice in a clone of the repository, then
// checks that make release-check fails on svc-mcp calling a function of
// sdk-go that its required version lacks, and on sdk-go losing an exported
// function without a major version. The real tree is never touched.
func TestReleaseCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("make release-check itself runs the short tests")
	}
	t.Parallel()
	root := repoRoot(t)
	clone := filepath.Join(t.TempDir(), "repo")
	env := os.Environ()
	run(t, root, env, "git", "clone", "--quiet", "--no-checkout", root, clone)
	head := strings.TrimSpace(run(t, root, env, "git", "rev-parse", "HEAD"))
	git := func(args ...string) string { return run(t, clone, env, "git", args...) }
	git("checkout", "--quiet", "-b", "release-test", head)
	git("config", "user.email", "e2e@example.com")
	git("config", "user.name", "e2e")
	// The work tree as it is, uncommitted edits of tracked files included,
	// less the sibling hashes that workspace builds (this test's too) add to
	// go.work.sum and that are never committed.
	siblingSum := regexp.MustCompile(`(?m)^github\.com/adsnap/svc/.*\n`)
	for _, f := range strings.Fields(run(t, root, env, "git", "ls-files", "-m")) {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue // deleted
		}
		if strings.HasSuffix(f, ".sum") {
			data = siblingSum.ReplaceAll(data, nil)
		}
		if err := os.WriteFile(filepath.Join(clone, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("commit", "--quiet", "--allow-empty", "-am", "work tree")
	make := func(args ...string) (string, error) {
		return runErr(clone, env, "make", append([]string{"--no-print-directory"}, args...)...)
	}
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(clone, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(name string) string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(clone, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}

	// The first release of sdk-go records its API.
	if out, err := make("release", "MODULE=sdk-go", "VERSION=v1.0.0"); err != nil {
		t.Fatalf("make release MODULE=sdk-go VERSION=v1.0.0: %v\n%s", err, out)
	}
	git("add", "-A")
	git("commit", "--quiet", "-m", "release: sdk-go v1.0.0")

	// v1.1.0 adds a function.
	write("sdk-go/added.go", "package svc\n\n// AddedInV110 is new in v1.1.0.\nfunc AddedInV110() string { return \"v1.1.0\" }\n")
	write("sdk-go/CHANGELOG.md", strings.Replace(read("sdk-go/CHANGELOG.md"), "## [Unreleased]\n", "## [Unreleased]\n\n### Added\n- `AddedInV110`.\n", 1))
	git("add", "-A")
	git("commit", "--quiet", "-m", "sdk-go: AddedInV110")
	out, err := make("release", "MODULE=sdk-go", "VERSION=v1.1.0")
	if err != nil {
		t.Fatalf("make release MODULE=sdk-go VERSION=v1.1.0: %v\n%s", err, out)
	}
	if !strings.Contains(out, "git tag sdk-go/v1.1.0") {
		t.Errorf("make release did not print the tag command:\n%s", out)
	}
	for file, want := range map[string]string{
		"versions.yaml":       "\n  sdk-go: v1.1.0\n",
		"sdk-go/CHANGELOG.md": "## [Unreleased]\n\n## [1.1.0] - ",
		"sdk-go/version.go":   `const Version = "1.1.0"`,
		"svc-mcp/go.mod":      "github.com/adsnap/svc/sdk-go v1.1.0",
		"svc-cli/go.mod":      "github.com/adsnap/svc/sdk-go v1.1.0",
		"go.work":             "\tgithub.com/adsnap/svc/sdk-go v1.1.0 => ./sdk-go\n",
	} {
		if got := read(file); !strings.Contains(got, want) {
			t.Errorf("after make release, %s lacks %q", file, want)
		}
	}
	if strings.Contains(read("go.work"), "sdk-go v1.0.0") {
		t.Errorf("after make release, go.work still replaces sdk-go v1.0.0:\n%s", read("go.work"))
	}
	if _, err := os.Stat(filepath.Join(clone, "api", "sdk-go", "v1.1.0.export")); err != nil {
		t.Errorf("make release did not record the API of v1.1.0: %v", err)
	}
	if _, err := os.Stat(filepath.Join(clone, "api", "sdk-go", "v1.0.0.export")); err == nil {
		t.Error("the API of v1.0.0 is still recorded beside v1.1.0's")
	}
	git("add", "-A")
	git("commit", "--quiet", "-m", "release: sdk-go v1.1.0")

	// Nothing under Unreleased: no release.
	before := git("status", "--porcelain")
	if out, err := make("release", "MODULE=sdk-go", "VERSION=v1.2.0"); err == nil || !strings.Contains(out, "no entry under ## [Unreleased]") {
		t.Errorf("make release without a CHANGELOG entry: err %v\n%s", err, out)
	}
	if after := git("status", "--porcelain"); after != before {
		t.Errorf("a refused release changed the tree:\n%s", after)
	}

	t.Run("sibling API its required version lacks", func(t *testing.T) {
		mod := read("svc-mcp/go.mod")
		write("svc-mcp/go.mod", strings.Replace(mod, "github.com/adsnap/svc/sdk-go v1.1.0", "github.com/adsnap/svc/sdk-go v1.0.0", 1))
		write("svc-mcp/uses_added.go", "package svcmcp\n\nimport svc \"github.com/adsnap/svc/sdk-go\"\n\nvar _ = svc.AddedInV110\n")
		git("add", "-A")
		git("commit", "--quiet", "-m", "svc-mcp uses AddedInV110 but requires sdk-go v1.0.0")
		out, err := make("release-check", "MODULES=svc-mcp")
		if err == nil {
			t.Fatalf("make release-check passed:\n%s", out)
		}
		if !strings.Contains(out, "AddedInV110") || !strings.Contains(out, "FAIL: svc-mcp") {
			t.Errorf("make release-check failed, but not on svc.AddedInV110 in svc-mcp:\n%s", out)
		}
		git("reset", "--quiet", "--hard", "HEAD~1")
	})

	t.Run("removed exported function without a major version", func(t *testing.T) {
		if err := os.Remove(filepath.Join(clone, "sdk-go", "added.go")); err != nil {
			t.Fatal(err)
		}
		out, err := make("release-check", "MODULES=sdk-go")
		if err == nil {
			t.Fatalf("make release-check passed:\n%s", out)
		}
		if !strings.Contains(out, "AddedInV110") || !strings.Contains(out, "incompatible API change") {
			t.Errorf("make release-check failed, but not on the removed AddedInV110:\n%s", out)
		}
	})
}
