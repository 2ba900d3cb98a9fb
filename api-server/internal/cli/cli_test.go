package cli

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/demo"
	"github.com/adsnap/svc/api-server/internal/snapshot"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/keys-admin/database"
	"github.com/adsnap/svc/keys-admin/keys"
)

// lockedBuffer is written by the server goroutine and read by the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

var (
	reKey  = regexp.MustCompile(`svc_live_[A-Za-z0-9]{43}`)
	reSite = regexp.MustCompile(`Serving on (http://[0-9.:]+)`)
)

// demoRun is a running svc-api demo.
type demoRun struct {
	site, key   string
	out, errOut *lockedBuffer
	cancel      func()
	done        chan int
}

// startDemo runs svc-api demo with args and waits until it serves.
func startDemo(t *testing.T, args ...string) *demoRun {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	d := &demoRun{out: &lockedBuffer{}, errOut: &lockedBuffer{}, cancel: cancel, done: make(chan int, 1)}
	go func() { d.done <- Run(ctx, append([]string{"demo"}, args...), nil, d.out, d.errOut) }()
	for deadline := time.Now().Add(30 * time.Second); d.site == "" && time.Now().Before(deadline); {
		if m := reSite.FindStringSubmatch(d.out.String()); m != nil {
			d.site = m[1]
		}
		select {
		case code := <-d.done:
			cancel()
			t.Fatalf("demo exited %d:\n%s\n%s", code, d.out.String(), d.errOut.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if d.site == "" {
		cancel()
		t.Fatalf("demo did not start:\n%s\n%s", d.out.String(), d.errOut.String())
	}
	d.key = reKey.FindString(d.out.String())
	t.Cleanup(func() { d.stop(t) })
	return d
}

// stop ends the demo and checks that it exits 0.
func (d *demoRun) stop(t *testing.T) {
	t.Helper()
	if d.cancel == nil {
		return
	}
	d.cancel()
	d.cancel = nil
	if code := <-d.done; code != 0 {
		t.Errorf("demo exit %d\n%s", code, d.errOut.String())
	}
}

func status(t *testing.T, site, key, path string) int {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, site+path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestDemoTwice runs svc-api demo twice on one data directory. A second run
// on the busy port of the first says so, says how to pick another port, and
// changes nothing; a second run on another port prints a new key, and the
// first run's key keeps working. SVC_DATABASE_URL is ignored: the demo uses
// its own embedded database. The output names the organization and user
// for keys-admin.
func TestDemoTwice(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SVC_REDIS_URL", "")
	t.Setenv("SVC_DATABASE_URL", "postgres://nobody@127.0.0.1:1/not_the_demo?sslmode=disable")
	first := startDemo(t, "--data-dir", dir, "--listen", "127.0.0.1:0")
	out := first.out.String()
	db := "sqlite:" + filepath.Join(dir, "demo.db")
	for _, want := range []string{
		`curl -H "Authorization: Bearer ` + first.key + `" ` + first.site + `/api/v1/developer/accounts`,
		"export SVC_SITE_URL=" + first.site + " SVC_API_KEY=" + first.key + "\n  svc accounts\n",
		"svc insights --summary",
		"keys-admin list --database-url " + db + " --org org_demo_acme --user u_demo_acme_owner",
		`{"command": "svc", "args": ["mcp"]`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(first.errOut.String(), "apply per replica") || !strings.Contains(first.errOut.String(), "SVC_DATABASE_URL is ignored") {
		t.Errorf("stderr lacks the per-process limits warning or the SVC_DATABASE_URL note:\n%s", first.errOut.String())
	}
	if code := status(t, first.site, first.key, "/api/v1/developer/insights?limit=3"); code != http.StatusOK {
		t.Fatalf("first key: %d", code)
	}

	// Same port while the first runs: refused, nothing changed.
	var o, e bytes.Buffer
	addr := strings.TrimPrefix(first.site, "http://")
	code := Run(t.Context(), []string{"demo", "--data-dir", dir, "--listen", addr}, nil, &o, &e)
	if code != exitUsage || !strings.Contains(e.String(), addr+" is busy") || !strings.Contains(e.String(), "--listen 127.0.0.1:8081") ||
		!strings.Contains(e.String(), "SVC_LISTEN_ADDR=") || reKey.MatchString(o.String()) {
		t.Errorf("demo on a busy port: exit %d\nstdout %s\nstderr %s", code, o.String(), e.String())
	}
	if code := status(t, first.site, first.key, "/api/v1/developer/accounts"); code != http.StatusOK {
		t.Errorf("first key after a refused second run: %d, want 200", code)
	}

	// Another port: a new key, and the first still works.
	second := startDemo(t, "--data-dir", dir, "--listen", "127.0.0.1:0")
	if second.key == first.key || second.key == "" {
		t.Fatalf("second run key %q", second.key)
	}
	if !strings.Contains(second.out.String(), "Keys printed by earlier demo runs still work until they expire (1 active)") {
		t.Errorf("second run does not say earlier keys still work:\n%s", second.out.String())
	}
	for i, k := range []string{first.key, second.key} {
		if code := status(t, second.site, k, "/api/v1/developer/accounts"); code != http.StatusOK {
			t.Errorf("key %d on the second run: %d, want 200", i, code)
		}
	}
	second.stop(t)
	first.stop(t)
}

// TestDemoKeyLimit: demo runs never exceed the organization's 10 active
// keys; at the limit the oldest demo key is revoked, and only that one.
func TestDemoKeyLimit(t *testing.T) {
	ctx := t.Context()
	db, err := database.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "demo.db"), database.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := store.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	if _, err := snapshot.Import(ctx, db, snapshot.Demo(time.Now()), time.Now()); err != nil {
		t.Fatal(err)
	}
	var created []string
	for i := range keys.MaxActiveKeys + 2 {
		dk, err := demo.NewKey(ctx, db)
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		created = append(created, dk.Created.ID)
		wantRevoked := max(0, i+1-keys.MaxActiveKeys)
		if len(dk.Revoked) != min(1, wantRevoked) {
			t.Errorf("run %d revoked %d keys", i, len(dk.Revoked))
		}
		if len(dk.Revoked) == 1 && dk.Revoked[0].ID != created[wantRevoked-1] {
			t.Errorf("run %d revoked %s, want the oldest %s", i, dk.Revoked[0].ID, created[wantRevoked-1])
		}
	}
	ks := keys.NewManager(db)
	list, err := ks.List(ctx, snapshot.DemoOrganization, snapshot.DemoOwner)
	if err != nil {
		t.Fatal(err)
	}
	active := 0
	for _, k := range list {
		if k.State == keys.StateActive {
			active++
		}
	}
	if active != keys.MaxActiveKeys {
		t.Errorf("%d active keys, want %d", active, keys.MaxActiveKeys)
	}
}

// TestDemoReachesToday: a demo still running after UTC midnight imports the
// new day, so that "today" has rows.
func TestDemoReachesToday(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	clock := time.Now().UTC().Truncate(24 * time.Hour).Add(23*time.Hour + 59*time.Minute)
	tick := make(chan time.Time)
	demo.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	demo.After = func(time.Duration) <-chan time.Time { return tick }
	t.Cleanup(func() { demo.Now, demo.After = time.Now, time.After })

	d := startDemo(t, "--data-dir", dir, "--listen", "127.0.0.1:0")
	db, err := database.Open(t.Context(), "sqlite:"+filepath.Join(dir, "demo.db"), database.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tomorrow := clock.Add(2 * time.Minute)
	rows := func(day time.Time) int {
		n, err := db.NewSelect().TableExpr("insights_daily").Where("date = ?", day.Format(time.DateOnly)).Count(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return int(n)
	}
	if n := rows(clock); n == 0 {
		t.Fatalf("no rows for the start day")
	}
	if n := rows(tomorrow); n != 0 {
		t.Fatalf("%d rows for tomorrow before midnight", n)
	}
	mu.Lock()
	clock = tomorrow
	mu.Unlock()
	tick <- tomorrow
	want := rows(clock.Add(-2 * time.Minute))
	for deadline := time.Now().Add(2 * time.Minute); rows(tomorrow) != want && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	if n := rows(tomorrow); n != want {
		t.Errorf("after midnight: %d rows for the new day, want %d", n, want)
	}
	d.stop(t)
}

func TestImportCommand(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "x.db")
	run := func(stdin string, args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := Run(t.Context(), args, strings.NewReader(stdin), &out, &errOut)
		return code, out.String() + errOut.String()
	}
	if code, out := run("", "migrate", "--database-url", db); code != 0 {
		t.Fatalf("migrate: %d %s", code, out)
	}
	if code, out := run("", "migrate", "--database-url", db); code != 0 || !strings.Contains(out, "up to date") {
		t.Fatalf("migrate again: %d %s", code, out)
	}
	bad := `{"organizations":[{"id":"org_a","subscriptionStatus":"active"}],
	         "accounts":[{"id":"acc_1","organizationId":"org_a","platformAdAccountId":"p","accountName":"n",
	                      "currency":"EUR","timezone":"UTC","isActive":true,"lastSyncAt":"nope"}]}`
	code, out := run(bad, "import", "-", "--database-url", db)
	if code != exitInvalid || !strings.Contains(out, "$.accounts[0].lastSyncAt: not an RFC 3339 date-time") ||
		!strings.Contains(out, "nothing was imported") {
		t.Fatalf("invalid import: %d %s", code, out)
	}
	good := strings.Replace(bad, `"nope"`, `"2026-11-20T06:00:00Z"`, 1)
	file := filepath.Join(dir, "doc.json")
	if err := os.WriteFile(file, []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if code, out := run("", "import", file, "--database-url", db); code != 0 || !strings.Contains(out, "1 accounts") {
			t.Fatalf("import: %d %s", code, out)
		}
	}
	// NDJSON, chosen by the file's extension; a bad --format is a usage error.
	nd := filepath.Join(dir, "records.ndjson")
	if err := os.WriteFile(nd, []byte(`{"kind":"account","id":"acc_2","organizationId":"org_a","platformAdAccountId":"p","accountName":"n","currency":"USD","timezone":"UTC","isActive":false}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out := run("", "import", nd, "--database-url", db); code != 0 || !strings.Contains(out, "imported 0 organizations, 1 accounts") {
		t.Fatalf("import ndjson: %d %s", code, out)
	}
	if code, out := run(`{"kind":"account","id":"acc_3"}`, "import", "-", "--format", "ndjson", "--database-url", db); code != exitInvalid ||
		!strings.Contains(out, "line 1: $.organizationId: want an identifier") {
		t.Fatalf("invalid ndjson: %d %s", code, out)
	}
	if code, _ := run("", "import", "-", "--format", "xml", "--database-url", db); code != exitUsage {
		t.Errorf("--format xml: %d", code)
	}
	if code, _ := run("", "import"); code != exitUsage {
		t.Errorf("import without a file: %d", code)
	}
	// The policy's numbers (README.md, "Exit codes"), not just the names.
	if code, _ := run(`{"kind":"account","id":"acc_3"}`, "import", "-", "--format", "ndjson", "--database-url", db); code != 8 {
		t.Errorf("invalid document: exit %d, want 8", code)
	}
	// A database that is not there: 6 (try again later), for migrate,
	// import and serve alike.
	unreachable := "postgres://u@127.0.0.1:1/x?sslmode=disable&connect_timeout=2"
	for _, args := range [][]string{
		{"migrate", "--database-url", unreachable},
		{"import", file, "--database-url", unreachable},
		{"serve", "--listen", "127.0.0.1:0", "--database-url", unreachable},
	} {
		if code, out := run("", args...); code != 6 || !strings.Contains(out, "connect to") {
			t.Errorf("%s on an unreachable database: exit %d, want 6: %s", args[0], code, out)
		}
	}
	// An unmigrated database: the hint, found by the error's code.
	empty := "sqlite:" + filepath.Join(dir, "empty.db")
	if code, out := run("", "import", file, "--database-url", empty); code != 1 || !strings.Contains(out, "run 'svc-api migrate' first") {
		t.Errorf("import before migrate: exit %d %s", code, out)
	}
	if code, out := run("", "version"); code != 0 || !strings.HasPrefix(out, "svc-api ") {
		t.Errorf("version: %d %s", code, out)
	}
}

// TestHelpNeverShowsSecretsFromEnvironment: URLs in the environment may hold
// passwords; --help must not print them as flag defaults.
func TestHelpNeverShowsSecretsFromEnvironment(t *testing.T) {
	t.Setenv("SVC_DATABASE_URL", "postgres://u:dbpass123@db.example/x")
	t.Setenv("SVC_REDIS_URL", "redis://:redispass456@r.example:6379/0")
	for _, cmd := range [][]string{{"serve", "--help"}, {"migrate", "--help"}, {"import", "--help"}, {"demo", "--help"}} {
		var out, errOut bytes.Buffer
		if code := Run(t.Context(), cmd, nil, &out, &errOut); code != 0 {
			t.Fatalf("%v: exit %d %s", cmd, code, errOut.String())
		}
		all := out.String() + errOut.String()
		if strings.Contains(all, "dbpass123") || strings.Contains(all, "redispass456") {
			t.Errorf("%v prints a password from the environment:\n%s", cmd, all)
		}
		if !strings.Contains(all, "SVC_DATABASE_URL") {
			t.Errorf("%v does not say where the database URL comes from", cmd)
		}
	}
}

// TestServeRejectsNegativeMaxInFlight: a negative --max-in-flight is a usage
// error that names the flag, before anything is served.
func TestServeRejectsNegativeMaxInFlight(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "x.db")
	var out, errOut bytes.Buffer
	if code := Run(t.Context(), []string{"migrate", "--database-url", db}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("migrate: %d %s", code, errOut.String())
	}
	errOut.Reset()
	code := Run(t.Context(), []string{"serve", "--database-url", db, "--listen", "127.0.0.1:0", "--max-in-flight", "-1"},
		strings.NewReader(""), &out, &errOut)
	if code != exitUsage || !strings.Contains(errOut.String(), "--max-in-flight must be 0") {
		t.Errorf("serve --max-in-flight -1: exit %d, %s", code, errOut.String())
	}
}

// TestConnectionFlags: the connection and deadline flags are documented
// with their defaults, and the database deadline reaches PostgreSQL as
// statement_timeout (issue #22 points 2, 3).
func TestConnectionFlags(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Run(t.Context(), []string{"serve", "--help"}, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d %s", code, errOut.String())
	}
	help := out.String() + errOut.String()
	for _, want := range []string{"--database-deadline duration", "(default 1s)", "--idle-timeout duration", "(default 30s)",
		"--max-conns-per-ip int", "(default 64)", "SVC_MAX_CONNS_PER_IP", "SVC_IDLE_TIMEOUT", "SVC_DATABASE_DEADLINE", "statement_timeout"} {
		if !strings.Contains(help, want) {
			t.Errorf("serve --help lacks %q:\n%s", want, help)
		}
	}
	for _, tc := range []struct {
		name    string
		f       func(string, time.Duration) string
		in, out string
	}{
		{"withStatementTimeout", withStatementTimeout, "postgres://u@h/db", "postgres://u@h/db?statement_timeout=1500"},
		{"withStatementTimeout", withStatementTimeout, "postgres://u@h/db?sslmode=disable", "postgres://u@h/db?sslmode=disable&statement_timeout=1500"},
		{"withStatementTimeout", withStatementTimeout, "postgres://u@h/db?statement_timeout=9000", "postgres://u@h/db?statement_timeout=9000"},
		{"withStatementTimeout", withStatementTimeout, "sqlite:x.db", "sqlite:x.db"},
		{"serveURL", serveURL, "postgres://u@h/db", "postgres://u@h/db?statement_timeout=1500&plan_cache_mode=force_generic_plan"},
		{"serveURL", serveURL, "postgresql://u@h/db?plan_cache_mode=auto", "postgresql://u@h/db?plan_cache_mode=auto&statement_timeout=1500"},
		{"serveURL", serveURL, "postgres://u:pw%3Fx@h/db?statement_timeout=9000&a=b", "postgres://u:pw%3Fx@h/db?statement_timeout=9000&a=b&plan_cache_mode=force_generic_plan"},
		{"serveURL", serveURL, "sqlite:x.db", "sqlite:x.db"},
	} {
		if got := tc.f(tc.in, 1500*time.Millisecond); got != tc.out {
			t.Errorf("%s(%q) = %q, want %q", tc.name, tc.in, got, tc.out)
		}
	}
	db := "sqlite:" + filepath.Join(t.TempDir(), "x.db")
	errOut.Reset()
	if code := Run(t.Context(), []string{"serve", "--database-url", db, "--listen", "127.0.0.1:0", "--max-conns-per-ip", "-1"},
		strings.NewReader(""), &out, &errOut); code != exitUsage {
		t.Errorf("--max-conns-per-ip -1: exit %d %s", code, errOut.String())
	}
}

// TestReplicaAndRedisFlags: the scale-out settings (issue #16) are in
// --help with their environment variables and the three Redis URL forms,
// a replica URL's password never reaches --help, and replicas of a SQLite
// database or a replica URL that is not postgres:// are usage errors that
// do not echo the URL.
func TestReplicaAndRedisFlags(t *testing.T) {
	t.Setenv("SVC_DATABASE_REPLICA_URLS", "postgres://u:replicapass789@r1.example/x")
	var out, errOut bytes.Buffer
	if code := Run(t.Context(), []string{"serve", "--help"}, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d %s", code, errOut.String())
	}
	help := out.String() + errOut.String()
	for _, want := range []string{"--database-replica-urls", "SVC_DATABASE_REPLICA_URLS", "--database-replica-max-lag duration",
		"(default 10s)", "SVC_DATABASE_REPLICA_MAX_LAG", "master_name=", "?addr=NODE2:PORT&addr="} {
		if !strings.Contains(help, want) {
			t.Errorf("serve --help lacks %q:\n%s", want, help)
		}
	}
	if strings.Contains(help, "replicapass789") {
		t.Error("serve --help prints a replica's password from the environment")
	}
	db := "sqlite:" + filepath.Join(t.TempDir(), "x.db")
	if code := Run(t.Context(), []string{"migrate", "--database-url", db}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("migrate: %d %s", code, errOut.String())
	}
	for _, urls := range []string{"postgres://u:replicapass789@r1.example/x", "mysql://u:replicapass789@r1.example/x"} {
		errOut.Reset()
		code := Run(t.Context(), []string{"serve", "--database-url", db, "--listen", "127.0.0.1:0", "--database-replica-urls", urls},
			strings.NewReader(""), &out, &errOut)
		if code != exitUsage || !strings.Contains(errOut.String(), "--database-replica-urls") || strings.Contains(errOut.String(), "replicapass789") {
			t.Errorf("replicas %q of a SQLite primary: exit %d %s", urls, code, errOut.String())
		}
	}
}
