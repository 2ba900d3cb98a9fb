package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsnap/svc/e2e/internal/harness"
	svc "github.com/adsnap/svc/sdk-go"
	"github.com/adsnap/svc/sdk-go/svctest"
)

var (
	binOnce sync.Once
	bins    harness.Binaries
	binErr  error
)

// binaries builds svc-api, svc and keys-admin once for the whole suite (the
// shared environment and the tests that need only the binaries).
func binaries() (harness.Binaries, error) {
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "svc-e2e-bin")
		if err != nil {
			binErr = err
			return
		}
		cleanups = append(cleanups, func() { os.RemoveAll(dir) })
		bins, binErr = harness.Build(dir)
	})
	return bins, binErr
}

// exitRow is one row of the README's exit-code table.
type exitRow struct {
	meaning string            // the meaning, up to its first ':'
	cells   map[string]string // binary → its cases; empty when none is named
}

var codeRow = regexp.MustCompile(`^\|\s*(\d+)\s*\|`)

// readmeExitCodes parses the table of the README's "Exit codes" section:
// code → row.
func readmeExitCodes(t *testing.T) map[int]exitRow {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Exit codes\n")
	if !ok {
		t.Fatal(`README.md has no "## Exit codes" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	cells := func(line string) []string {
		f := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		for i := range f {
			f[i] = strings.Trim(strings.TrimSpace(f[i]), "`")
		}
		return f
	}
	var header []string
	rows := map[int]exitRow{}
	for line := range strings.Lines(section) {
		switch {
		case strings.HasPrefix(line, "| code |"):
			header = cells(line)
		case codeRow.MatchString(line):
			f := cells(line)
			if len(f) != len(header) || len(header) < 3 {
				t.Fatalf("README exit-code row %q: %d cells, header %q", line, len(f), header)
			}
			code, _ := strconv.Atoi(f[0])
			meaning, _, _ := strings.Cut(f[1], ":")
			r := exitRow{meaning: meaning, cells: map[string]string{}}
			for i, bin := range header[2:] {
				r.cells[bin] = f[2+i]
			}
			rows[code] = r
		}
	}
	if len(rows) == 0 || header == nil {
		t.Fatal("README's Exit codes section has no table")
	}
	return rows
}

// documented returns the codes the README gives bin: those of a row naming
// cases in its column, and 0 and 1, which every command has.
func documented(rows map[int]exitRow, bin string) []int {
	var codes []int
	for code, r := range rows {
		if r.cells[bin] != "" || code == 0 || code == 1 {
			codes = append(codes, code)
		}
	}
	slices.Sort(codes)
	return codes
}

var helpCode = regexp.MustCompile(`^  (\d+)  (.*)$`)

// helpExitCodes parses the "Exit codes" block of a --help text: code →
// the line's text.
func helpExitCodes(help string) map[int]string {
	codes := map[int]string{}
	in := false
	sc := bufio.NewScanner(strings.NewReader(help))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "Exit codes") {
			in = true
			continue
		}
		if !in {
			continue
		}
		if m := helpCode.FindStringSubmatch(line); m != nil {
			code, _ := strconv.Atoi(m[1])
			codes[code] = m[2]
			continue
		}
		if len(codes) > 0 && !strings.HasPrefix(line, "     ") {
			break // the block has ended
		}
	}
	return codes
}

// exitCase provokes one exit code of one binary for real.
type exitCase struct {
	bin, name string
	code      int
	args      []string
	env       []string // the whole environment besides PATH and HOME
	stdin     string
	want      string // in stderr (or stdout for code 0)
}

// TestExitCodes holds the README's exit-code table, the one policy of svc,
// svc-api and keys-admin, to the three built binaries: each binary's --help
// lists exactly the codes the README gives it, each line beginning with the
// README's meaning, and each of those codes is provoked for real, with the
// binary run as a user runs it (real HTTP answers, real databases, a port
// where nothing listens).
func TestExitCodes(t *testing.T) {
	t.Parallel()
	b, err := binaries()
	if err != nil {
		t.Fatal(err)
	}
	rows := readmeExitCodes(t)
	paths := map[string]string{"svc": b.CLI, "svc-api": b.API, "keys-admin": b.KeysAdmin}
	var cases []exitCase
	cases = append(cases, svcExitCases(t)...)
	cases = append(cases, svcAPIExitCases(t, b)...)
	cases = append(cases, keysAdminExitCases(t, b)...)

	for _, bin := range []string{"svc", "svc-api", "keys-admin"} {
		want := documented(rows, bin)
		out, _, code := runExit(t, paths[bin], nil, "", "--help")
		if code != 0 {
			t.Errorf("%s --help: exit %d", bin, code)
		}
		help := helpExitCodes(out)
		if got := slices.Sorted(maps.Keys(help)); !slices.Equal(got, want) {
			t.Errorf("%s --help lists exit codes %v, the README %v:\n%s", bin, got, want, out)
		}
		for code, line := range help {
			if r, ok := rows[code]; ok && !strings.HasPrefix(line, r.meaning) {
				t.Errorf("%s --help: %d %q does not begin with the README's meaning %q", bin, code, line, r.meaning)
			}
		}
		var provoked []int
		for _, c := range cases {
			if c.bin == bin && !slices.Contains(provoked, c.code) {
				provoked = append(provoked, c.code)
			}
		}
		slices.Sort(provoked)
		if !slices.Equal(provoked, want) {
			t.Errorf("%s: the cases provoke codes %v, the README documents %v", bin, provoked, want)
		}
	}
	for _, c := range cases {
		t.Run(c.bin+"/"+strconv.Itoa(c.code)+"/"+c.name, func(t *testing.T) {
			out, errOut, code := runExit(t, paths[c.bin], c.env, c.stdin, c.args...)
			if code != c.code {
				t.Fatalf("%s %s: exit %d, want %d (%s)\nstdout: %.500s\nstderr: %.2000s", c.bin, strings.Join(c.args, " "), code, c.code, rows[c.code].meaning, out, errOut)
			}
			if where := errOut + out; c.want != "" && !strings.Contains(where, c.want) {
				t.Errorf("%s %s: exit %d, but the output lacks %q:\n%s", c.bin, strings.Join(c.args, " "), code, c.want, where)
			}
		})
	}
}

// runExit runs bin with exactly env (and PATH and a HOME of its own), so
// that no SVC_* variable of the caller's environment changes the outcome.
func runExit(t *testing.T, bin string, env []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "NO_COLOR=1"}, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return o.String(), e.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("%s %s: %v", bin, strings.Join(args, " "), err)
	}
	return o.String(), e.String(), 0
}

// closedPort returns 127.0.0.1:PORT where nothing listens (a port that was
// free a moment ago).
func closedPort(t *testing.T) string {
	t.Helper()
	p, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return "127.0.0.1:" + strconv.Itoa(p)
}

// svcExitCases: svc against svctest's stand-in (whose answers e2e's Double
// scenario holds to svc-api's) and servers that answer 302, 429 and 503.
func svcExitCases(t *testing.T) []exitCase {
	t.Helper()
	key := svctest.MakeKey(strings.Repeat("E", 37))
	// svc verify: a download whose signature file is not a signature.
	dl := t.TempDir()
	file, sums, sig := filepath.Join(dl, "a.txt"), filepath.Join(dl, "SHA256SUMS"), filepath.Join(dl, "SHA256SUMS.minisig")
	for name, data := range map[string]string{file: "hi\n", sums: "98ea6e4f216f2fb4b69fff9b3a44842c38686ca685f3f55dc48c5d3fb1107be4  a.txt\n", sig: "not a signature\n"} {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	accounts := func(n int) []svctest.Row {
		rows := make([]svctest.Row, n)
		for i := range rows {
			id := fmt.Sprintf("acc_%05d", i)
			rows[i] = svctest.Row{AccountID: id, JSON: `{"id":"` + id + `","accountName":"Exit ` + id + `","currency":"EUR","timezone":"Europe/Berlin","isActive":true,"lastSyncAt":null}`}
		}
		return rows
	}
	serve := func(h http.Handler) string {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return srv.URL
	}
	stats := func(status int, header ...string) string {
		return serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			for i := 0; i+1 < len(header); i += 2 {
				w.Header().Set(header[i], header[i+1])
			}
			svctest.WriteError(w, status, http.StatusText(status))
		}))
	}
	api := serve(&svctest.API{Key: key, Scopes: []string{"accounts:read"}, Accounts: accounts(3),
		DataAsOf: "2026-11-20T06:00:00Z", GeneratedAt: "2026-11-20T07:00:00Z"})
	// More accounts than the offset limit lets a listing read, and no filter
	// splits the accounts: --all must stop short.
	capped := serve(&svctest.API{Key: key, Accounts: accounts(svc.MaxOffset + svc.MaxLimit + 50),
		DataAsOf: "2026-11-20T06:00:00Z", GeneratedAt: "2026-11-20T07:00:00Z"})
	redirect := serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://elsewhere.example/", http.StatusFound)
	}))
	site := func(url string, withKey bool) []string {
		env := []string{"SVC_SITE_URL=" + url}
		if withKey {
			env = append(env, "SVC_API_KEY="+key)
		}
		return env
	}
	return []exitCase{
		{"svc", "accounts", 0, []string{"accounts", "-o", "json"}, site(api, true), "", "acc_00002"},
		{"svc", "version", 0, []string{"version"}, nil, "", "svc "},
		{"svc", "redirect refused", 1, []string{"accounts"}, site(redirect, true), "", "redirect"},
		{"svc", "limit 0", 2, []string{"accounts", "--limit", "0"}, site(api, true), "", "limit"},
		{"svc", "unknown flag", 2, []string{"accounts", "--no-such-flag"}, site(api, true), "", "unknown flag"},
		{"svc", "no key", 3, []string{"accounts"}, site(api, false), "", "SVC_API_KEY"},
		{"svc", "401", 3, []string{"accounts"}, append(site(api, false), "SVC_API_KEY="+svctest.MakeKey(strings.Repeat("F", 37))), "", "401"},
		{"svc", "403", 3, []string{"campaigns"}, site(api, true), "", "403"},
		{"svc", "404", 4, []string{"accounts", "--accountId", "acc_elsewhere"}, site(api, true), "", "404"},
		{"svc", "429", 5, []string{"accounts"}, site(stats(http.StatusTooManyRequests, "Retry-After", "60"), true), "", "429"},
		{"svc", "503", 6, []string{"accounts"}, site(stats(http.StatusServiceUnavailable), true), "", "503"},
		{"svc", "nothing listens", 6, []string{"accounts"}, site("http://"+closedPort(t), true), "", "network"},
		{"svc", "all past the offset limit", 7, []string{"accounts", "--all", "-o", "jsonl"}, site(capped, true), "", "incomplete"},
		{"svc", "verify: not a signature", 8, []string{"verify", file, "--sums", sums, "--signature", sig}, nil, "", "trust none of the files"},
	}
}

// svcAPIExitCases: svc-api on SQLite files of its own and on a PostgreSQL
// URL where nothing listens.
func svcAPIExitCases(t *testing.T, b harness.Binaries) []exitCase {
	t.Helper()
	dir := t.TempDir()
	migrated := "sqlite:" + filepath.Join(dir, "migrated.db")
	if out, errOut, code := runExit(t, b.API, nil, "", "migrate", "--database-url", migrated); code != 0 {
		t.Fatalf("svc-api migrate: exit %d\n%s%s", code, out, errOut)
	}
	down := "postgres://postgres@" + closedPort(t) + "/test?sslmode=disable&connect_timeout=5"
	return []exitCase{
		{"svc-api", "version", 0, []string{"version"}, nil, "", "svc-api "},
		{"svc-api", "import before migrate", 1, []string{"import", "-", "--database-url", "sqlite:" + filepath.Join(dir, "fresh.db")}, nil, "{}", "migrate"},
		{"svc-api", "unknown flag", 2, []string{"serve", "--no-such-flag"}, nil, "", "unknown flag"},
		{"svc-api", "bad value", 2, []string{"serve", "--database-deadline", "soon", "--database-url", migrated}, nil, "", "invalid argument"},
		{"svc-api", "database unreachable (migrate)", 6, []string{"migrate", "--database-url", down}, nil, "", ""},
		{"svc-api", "database unreachable (import)", 6, []string{"import", "-", "--database-url", down}, nil, "{}", ""},
		{"svc-api", "invalid document", 8, []string{"import", "-", "--database-url", migrated}, nil, `{"accounts": [{"id": 7}]}`, "nothing was imported"},
	}
}

// keysAdminExitCases: keys-admin on an SQLite database that svc-api migrated
// and loaded with the suite's fixture (organizations and their members), on
// one that was never migrated, and on a PostgreSQL URL where nothing
// listens.
func keysAdminExitCases(t *testing.T, b harness.Binaries) []exitCase {
	t.Helper()
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "keys.db")
	fix := harness.NewFixture(today())
	for _, args := range [][]string{{"migrate", "--database-url", db}, {"import", "-", "--database-url", db}} {
		if out, errOut, code := runExit(t, b.API, nil, string(fix.JSON()), args...); code != 0 {
			t.Fatalf("svc-api %s: exit %d\n%s%s", args[0], code, out, errOut)
		}
	}
	owner := fix.Owner[harness.OrgAlpha]
	create := func(user string, extra ...string) []string {
		return append([]string{"create", "--database-url", db, "--org", harness.OrgAlpha, "--user", user, "--scopes", "accounts:read", "--name", "exit codes"}, extra...)
	}
	out, errOut, code := runExit(t, b.KeysAdmin, nil, "", create(owner)...)
	fields := strings.Fields(errOut)
	if code != 0 || len(fields) < 2 || !strings.HasPrefix(fields[1], "key_") {
		t.Fatalf("keys-admin create: exit %d\n%s%s", code, out, errOut)
	}
	keyID := fields[1]
	if _, errOut, code := runExit(t, b.KeysAdmin, nil, "", "revoke", "--database-url", db, "--org", harness.OrgAlpha, "--user", owner, keyID); code != 0 {
		t.Fatalf("keys-admin revoke: exit %d\n%s", code, errOut)
	}
	down := "postgres://postgres@" + closedPort(t) + "/test?sslmode=disable&connect_timeout=5"
	return []exitCase{
		{"keys-admin", "version", 0, []string{"version"}, nil, "", "keys-admin "},
		{"keys-admin", "list", 0, []string{"list", "--database-url", db, "--org", harness.OrgAlpha, "--user", owner}, nil, "", keyID},
		{"keys-admin", "list before migrate", 1, []string{"list", "--database-url", "sqlite:" + filepath.Join(dir, "fresh.db"), "--org", harness.OrgAlpha, "--user", owner}, nil, "", "no such table"},
		{"keys-admin", "bad scope", 2, []string{"create", "--database-url", db, "--org", harness.OrgAlpha, "--user", owner, "--scopes", "accounts:write", "--name", "x"}, nil, "", "scope"},
		{"keys-admin", "no database URL", 2, []string{"list", "--org", harness.OrgAlpha, "--user", owner}, nil, "", "database"},
		{"keys-admin", "not an owner or admin", 3, create("u_nobody_" + harness.RandomHex(3)), nil, "", ""},
		{"keys-admin", "unknown organization", 4, []string{"list", "--database-url", db, "--org", "org_nowhere", "--user", owner}, nil, "", ""},
		{"keys-admin", "unknown key", 4, []string{"revoke", "--database-url", db, "--org", harness.OrgAlpha, "--user", owner, "key_nowhere"}, nil, "", ""},
		{"keys-admin", "already revoked", 5, []string{"revoke", "--database-url", db, "--org", harness.OrgAlpha, "--user", owner, keyID}, nil, "", "revoked"},
		{"keys-admin", "database unreachable", 6, []string{"list", "--database-url", down, "--org", harness.OrgAlpha, "--user", owner}, nil, "", ""},
	}
}
