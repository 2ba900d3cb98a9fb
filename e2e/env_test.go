package e2e

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsnap/svc/e2e/internal/harness"
	"github.com/jackc/pgx/v5"
)

// env is the system under test, built once for the whole suite.
type env struct {
	bin     harness.Binaries
	fix     *harness.Fixture
	dbURL   string // direct, for setup and keys-admin
	redis   string // host:port of the real Redis
	pgProxy *harness.Proxy
	rdProxy *harness.Proxy
	// replicas share the database (through pgProxy) and Redis (through
	// rdProxy); their limits are raised so that the volume of the contract
	// and tenancy scenarios is not refused. The rate-limit scenario starts
	// its own replicas with the default limits.
	replicas []*harness.Server
	// The key that expires during the run: its status right after set-up,
	// and when it expires.
	expiringFirst int
	expiringAt    time.Time
	downloads     string            // the replicas' downloads directory, filled by the distribution scenario
	keys          map[string]string // name → key value
	keyIDs        map[string]string // name → key id
	rec           *recorder
}

var (
	theEnv  *env
	envErr  error
	envOnce sync.Once
)

// setup builds and starts everything once; every scenario calls it.
func setup(t *testing.T) *env {
	t.Helper()
	envOnce.Do(func() { theEnv, envErr = newEnv() })
	if envErr != nil {
		t.Fatal(envErr)
	}
	return theEnv
}

var cleanups []func()

func TestMain(m *testing.M) {
	code := m.Run()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	os.Exit(code)
}

func newEnv() (e *env, err error) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "svc-e2e")
	if err != nil {
		return nil, err
	}
	cleanups = append(cleanups, func() { os.RemoveAll(dir) })
	e = &env{keys: map[string]string{}, keyIDs: map[string]string{}, rec: &recorder{}}
	if e.bin, err = binaries(); err != nil {
		return nil, err
	}
	dbURL, drop, err := harness.FreshDatabase(ctx)
	if err != nil {
		return nil, err
	}
	cleanups = append(cleanups, drop)
	e.dbURL = dbURL
	e.redis, err = redisAddr()
	if err != nil {
		return nil, err
	}

	e.fix = harness.NewFixture(today())
	dbEnv := []string{"SVC_DATABASE_URL=" + e.dbURL}
	if out, errOut, code, err := harness.Run(ctx, e.bin.API, dbEnv, "", "migrate"); err != nil || code != 0 {
		return nil, fmt.Errorf("svc-api migrate: exit %d %v\n%s%s", code, err, out, errOut)
	}
	if out, errOut, code, err := harness.Run(ctx, e.bin.API, dbEnv, string(e.fix.JSON()), "import", "-"); err != nil || code != 0 {
		return nil, fmt.Errorf("svc-api import: exit %d %v\n%s%s", code, err, out, errOut)
	}
	if err := e.createKeys(ctx); err != nil {
		return nil, err
	}
	// The shared replicas: limits raised (through the configuration users
	// have) so that the volume of the contract and tenancy scenarios is not
	// refused; PostgreSQL and Redis reached through proxies the suite controls.
	if e.pgProxy, err = harness.NewProxy(hostPort(e.dbURL)); err != nil {
		return nil, err
	}
	cleanups = append(cleanups, e.pgProxy.Close)
	if e.rdProxy, err = harness.NewProxy(e.redis); err != nil {
		return nil, err
	}
	cleanups = append(cleanups, e.rdProxy.Close)
	e.downloads = filepath.Join(dir, "downloads")
	if err := os.Mkdir(e.downloads, 0o755); err != nil {
		return nil, err
	}
	replicas, stop, err := e.startReplicas(withHost(e.dbURL, e.pgProxy.Addr()), e.rdProxy.Addr(), "e2e"+harness.RandomHex(4),
		"SVC_DOWNLOADS_DIR="+e.downloads, "SVC_LIMIT_KEY_PER_MINUTE=1000000", "SVC_LIMIT_ORG_PER_MINUTE=1000000", "SVC_LIMIT_IP_PER_MINUTE=1000000",
		// A loaded CI machine can starve a query past the 1 s default, and a
		// limiter call past Redis's 250 ms (a 503 once in Import, once in
		// KeyLifecycle under stress-ng); these scenarios test answers, the
		// hostile group tests the default deadlines.
		"SVC_DATABASE_DEADLINE=10s", "SVC_REDIS_DEADLINE=2s")
	cleanups = append(cleanups, func() { stop() }) //nolint:errcheck
	if err != nil {
		return nil, err
	}
	e.replicas = replicas
	// A key that expires during the run: keys live whole days, so the suite
	// moves this one's expiry, directly in the database, to a few seconds
	// from now, and checks that it works until then.
	conn, err := pgx.Connect(ctx, e.dbURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, "UPDATE developer_keys SET expires_at = now() + interval '5 seconds' WHERE id = $1 RETURNING expires_at",
		e.keyIDs["gamma_expiring"]).Scan(&e.expiringAt); err != nil {
		return nil, err
	}
	resp, _, err := harness.Get(ctx, harness.ClientFrom("127.0.0.10"), replicas[0].URL+"/api/v1/developer/accounts", e.keys["gamma_expiring"])
	if err != nil {
		return nil, err
	}
	e.expiringFirst = resp.StatusCode
	return e, nil
}

// keySpec is a key the suite creates through keys-admin.
type keySpec struct {
	name, org, user, scopes string
}

// allScopes is every scope.
const allScopes = "accounts:read,campaigns:read,insights:read"

// scopeCombos are the seven non-empty scope sets, keyed by a short name.
var scopeCombos = map[string]string{
	"a": "accounts:read", "c": "campaigns:read", "i": "insights:read",
	"ac": "accounts:read,campaigns:read", "ai": "accounts:read,insights:read", "ci": "campaigns:read,insights:read",
	"aci": allScopes,
}

func (e *env) createKeys(ctx context.Context) error {
	f := e.fix
	specs := []keySpec{
		{"beta", harness.OrgBeta, f.Owner[harness.OrgBeta], allScopes},
		{"beta2", harness.OrgBeta, f.Owner[harness.OrgBeta], allScopes},
		{"beta3", harness.OrgBeta, f.Owner[harness.OrgBeta], allScopes},
		{"gamma", harness.OrgGamma, f.Owner[harness.OrgGamma], allScopes},
		{"gamma_revoke", harness.OrgGamma, f.Owner[harness.OrgGamma], allScopes},
		{"gamma_expiring", harness.OrgGamma, f.Owner[harness.OrgGamma], allScopes},
		{"alpha_demoted", harness.OrgAlpha, f.DemotedAdmin, allScopes},
		{"alpha_removed", harness.OrgAlpha, f.RemovedAdmin, allScopes},
	}
	for name, scopes := range scopeCombos {
		specs = append(specs, keySpec{"alpha_" + name, harness.OrgAlpha, f.Owner[harness.OrgAlpha], scopes})
	}
	for _, s := range specs {
		key, id, err := e.keysAdminCreate(ctx, s, 30)
		if err != nil {
			return err
		}
		e.keys[s.name], e.keyIDs[s.name] = key, id
	}
	return nil
}

// keysAdminCreate creates a key with the keys-admin binary and returns its
// value and id.
func (e *env) keysAdminCreate(ctx context.Context, s keySpec, days int) (key, id string, err error) {
	out, errOut, code, err := harness.Run(ctx, e.bin.KeysAdmin, []string{"SVC_DATABASE_URL=" + e.dbURL}, "",
		"create", "--org", s.org, "--user", s.user, "--scopes", s.scopes, "--expires-in-days", fmt.Sprint(days), "--name", s.name)
	if err != nil || code != 0 {
		return "", "", fmt.Errorf("keys-admin create %s: exit %d %v\n%s", s.name, code, err, errOut)
	}
	key = strings.TrimSpace(out)
	// stderr: "created key_… (svc_live_…xxxx) for org: …"
	fields := strings.Fields(errOut)
	if len(fields) < 2 || !strings.HasPrefix(fields[1], "key_") {
		return "", "", fmt.Errorf("keys-admin create %s: unexpected stderr %q", s.name, errOut)
	}
	e.rec.secret(key)
	return key, fields[1], nil
}

// startReplicas starts two svc-api replicas sharing the database at dbURL
// and Redis at redisAddr under namespace ns, with extra environment (e.g.
// limits). stop stops both.
func (e *env) startReplicas(dbURL, redisAddr, ns string, extra ...string) (replicas []*harness.Server, stop func() error, err error) {
	stop = func() error {
		var errs []error
		for _, s := range replicas {
			if err := s.Stop(); err != nil {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}
	for range 2 {
		port, err := harness.FreePort()
		if err != nil {
			return nil, stop, err
		}
		env := append([]string{
			"SVC_DATABASE_URL=" + dbURL,
			"SVC_REDIS_URL=redis://" + redisAddr + "/0",
			"SVC_REDIS_NAMESPACE=" + ns,
			fmt.Sprintf("SVC_LISTEN_ADDR=127.0.0.1:%d", port),
			fmt.Sprintf("SVC_SITE_URL=http://127.0.0.1:%d", port),
		}, extra...)
		s, err := harness.StartServer(e.bin.API, port, env, "serve")
		if err != nil {
			stop() //nolint:errcheck
			return nil, stop, err
		}
		e.rec.logs(s.Logs)
		replicas = append(replicas, s)
	}
	return replicas, stop, nil
}

// startDefaultLimitReplicas starts two replicas with the default limits and
// a fresh Redis namespace, stopped when the test ends.
func (e *env) startDefaultLimitReplicas(t *testing.T) []*harness.Server {
	t.Helper()
	replicas, stop, err := e.startReplicas(e.dbURL, e.redis, "e2e"+harness.RandomHex(4), "SVC_DATABASE_DEADLINE=10s")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Error(err)
		}
	})
	return replicas
}

// today is the current UTC date.
func today() time.Time {
	n := time.Now().UTC()
	return time.Date(n.Year(), n.Month(), n.Day(), 0, 0, 0, 0, time.UTC)
}

// get sends GET to a replica with a key, records the exchange for the
// canary check, and returns the response and body.
func (e *env) get(t *testing.T, client *http.Client, url, key string) (*http.Response, []byte) {
	t.Helper()
	resp, body, err := harness.Get(t.Context(), client, url, key)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	e.rec.response(resp, body)
	return resp, body
}

// hostPort returns the host:port of a URL.
func hostPort(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		panic(err)
	}
	return u.Host
}

// withHost returns rawURL with its host:port replaced.
func withHost(rawURL, hostport string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		panic(err)
	}
	u.Host = hostport
	return u.String()
}

// redisAddr is the host:port of the test Redis; it fails with a message
// saying how to start Redis when it cannot be reached.
func redisAddr() (string, error) {
	u, err := url.Parse(harness.RedisURL())
	if err != nil {
		return "", fmt.Errorf("SVC_TEST_REDIS_URL: %w", err)
	}
	c, err := net.DialTimeout("tcp", u.Host, 3*time.Second)
	if err != nil {
		return "", fmt.Errorf("redis is required and not reachable at %s (%v); start it with scripts/services.sh (make test does), or set SVC_TEST_REDIS_URL", u.Host, err)
	}
	c.Close()
	return u.Host, nil
}
