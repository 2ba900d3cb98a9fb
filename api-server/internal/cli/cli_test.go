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

// TestDemoTwice runs svc-api demo twice on one data directory: each run
// serves the demo data with a fresh key, and the previous key is revoked.
func TestDemoTwice(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SVC_REDIS_URL", "")
	var keys []string
	for run := range 2 {
		ctx, cancel := context.WithCancel(t.Context())
		var out, errOut lockedBuffer
		done := make(chan int, 1)
		go func() {
			done <- Run(ctx, []string{"demo", "--data-dir", dir, "--listen", "127.0.0.1:0"}, nil, &out, &errOut)
		}()
		var site string
		for deadline := time.Now().Add(30 * time.Second); site == "" && time.Now().Before(deadline); {
			if m := reSite.FindStringSubmatch(out.String()); m != nil {
				site = m[1]
			}
			time.Sleep(20 * time.Millisecond)
		}
		if site == "" {
			cancel()
			t.Fatalf("run %d: demo did not start:\n%s\n%s", run, out.String(), errOut.String())
		}
		key := reKey.FindString(out.String())
		if !strings.Contains(out.String(), `curl -H "Authorization: Bearer `+key+`" `+site+`/api/v1/developer/accounts`) ||
			!strings.Contains(out.String(), "SVC_SITE_URL="+site+" SVC_API_KEY="+key+" svc accounts") {
			t.Errorf("run %d: output lacks the commands:\n%s", run, out.String())
		}
		if !strings.Contains(errOut.String(), "apply per replica") {
			t.Errorf("run %d: no warning about per-process limits:\n%s", run, errOut.String())
		}
		keys = append(keys, key)
		for i, k := range keys {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, site+"/api/v1/developer/insights?limit=3", nil)
			req.Header.Set("Authorization", "Bearer "+k)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			want := http.StatusOK
			if i < len(keys)-1 {
				want = http.StatusUnauthorized // the previous run's key was revoked
			}
			if resp.StatusCode != want {
				t.Errorf("run %d, key %d: %d, want %d", run, i, resp.StatusCode, want)
			}
		}
		cancel()
		if code := <-done; code != 0 {
			t.Fatalf("run %d: exit %d\n%s", run, code, errOut.String())
		}
	}
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
	if code, _ := run("", "import"); code != exitUsage {
		t.Errorf("import without a file: %d", code)
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
	for in, want := range map[string]string{
		"postgres://u@h/db":                        "postgres://u@h/db?statement_timeout=1500",
		"postgres://u@h/db?sslmode=disable":        "postgres://u@h/db?sslmode=disable&statement_timeout=1500",
		"postgres://u@h/db?statement_timeout=9000": "postgres://u@h/db?statement_timeout=9000",
		"sqlite:x.db":                              "sqlite:x.db",
	} {
		if got := withStatementTimeout(in, 1500*time.Millisecond); got != want {
			t.Errorf("withStatementTimeout(%q) = %q, want %q", in, got, want)
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
