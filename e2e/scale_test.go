package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/redistest"
	"github.com/adsnap/svc/e2e/internal/harness"
	"github.com/jackc/pgx/v5"
)

// TestScale is the `scale` group (issue #16): the production topology on
// one machine, from Debian's packages: a three-master Redis Cluster, a
// PostgreSQL primary with a streaming replica made by pg_basebackup (own
// data directories and ports, run as the postgres user), and HAProxy in
// front of three svc-api replicas. Everything it starts is stopped by PID
// when it ends, also on failure. Run it alone with
// go test -count=1 -run TestScale -v .
func TestScale(t *testing.T) {
	e := setup(t)
	began := time.Now()
	s := newScale(t, e)
	t.Logf("scale group set-up: %.1f s", time.Since(began).Seconds())
	for _, sc := range []struct {
		name string
		run  func(*testing.T, *scale)
	}{
		{"RateLimitExact", testScaleRateLimit},
		{"Revocation", testScaleRevocation},
		{"ReplicaLag", testScaleReplicaLag},
		{"PostgresReplicaKilled", testScalePostgresReplicaKilled},
		{"ReplicaKilled", testScaleReplicaKilled},
		{"RedisNodeDown", testScaleRedisNodeDown}, // last: the Cluster stays broken
	} {
		t.Run(sc.name, func(t *testing.T) { sc.run(t, s) })
	}
	t.Logf("scale group: %.1f s", time.Since(began).Seconds())
}

type scale struct {
	e        *env
	redis    *redistest.Cluster
	pg       *harness.PostgresPair
	lb       *harness.HAProxy
	replicas []*harness.Server
	metrics  []string          // each replica's metrics listener, http://127.0.0.1:port
	keys     map[string]string // name → key value
	keyIDs   map[string]string
	killed   map[int]bool
}

// scaleKeys are the keys the group creates, with their organizations.
var scaleKeys = map[string]string{
	"rl": harness.OrgAlpha, "rev": harness.OrgBeta,
	"p1": harness.OrgAlpha, "p2": harness.OrgBeta, "p3": harness.OrgGamma, "p4": harness.OrgAlpha,
	"k1": harness.OrgBeta, "k2": harness.OrgGamma, "k3": harness.OrgAlpha, "k4": harness.OrgBeta,
	"d1": harness.OrgAlpha, "d2": harness.OrgBeta, "d3": harness.OrgGamma,
}

func newScale(t *testing.T, e *env) *scale {
	t.Helper()
	s := &scale{e: e, keys: map[string]string{}, keyIDs: map[string]string{}, killed: map[int]bool{}}
	// Not t.TempDir: the postgres user must reach the directory.
	dir, err := os.MkdirTemp("", "svc-scale-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	phase := time.Now()
	if s.redis, err = redistest.StartCluster(t.Context(), filepath.Join(dir, "redis")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.redis.Stop)
	t.Logf("Redis Cluster: %.1f s", time.Since(phase).Seconds())
	phase = time.Now()
	pgDir := filepath.Join(dir, "pg")
	if err := os.MkdirAll(pgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	s.pg, err = harness.StartPostgresPair(pgDir, func(primary string) error {
		ctx := context.Background()
		dbEnv := []string{"SVC_DATABASE_URL=" + primary}
		if out, errOut, code, err := harness.Run(ctx, e.bin.API, dbEnv, "", "migrate"); err != nil || code != 0 {
			return fmt.Errorf("svc-api migrate: exit %d %v\n%s%s", code, err, out, errOut)
		}
		if out, errOut, code, err := harness.Run(ctx, e.bin.API, dbEnv, string(e.fix.JSON()), "import", "-"); err != nil || code != 0 {
			return fmt.Errorf("svc-api import: exit %d %v\n%s%s", code, err, out, errOut)
		}
		t.Logf("PostgreSQL primary, migrate, import: %.1f s", time.Since(phase).Seconds())
		phase = time.Now()
		for name, org := range scaleKeys {
			key, id, err := keysCreate(ctx, e, primary, keySpec{name, org, e.fix.Owner[org], allScopes})
			if err != nil {
				return err
			}
			s.keys[name], s.keyIDs[name] = key, id
		}
		t.Logf("%d keys: %.1f s", len(scaleKeys), time.Since(phase).Seconds())
		phase = time.Now()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.pg.Stop)
	t.Logf("pg_basebackup, replica: %.1f s", time.Since(phase).Seconds())
	phase = time.Now()
	ns := "scale" + harness.RandomHex(4)
	var backends []string
	for i := range 3 {
		port, err := harness.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		// The read replica's detail (lag, reason) is on the metrics
		// listener's /readyz; the public one says ok or not (issue 30).
		mport, err := harness.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		s.metrics = append(s.metrics, fmt.Sprintf("http://127.0.0.1:%d", mport))
		env := []string{
			fmt.Sprintf("SVC_METRICS_ADDR=127.0.0.1:%d", mport),
			"SVC_DATABASE_URL=" + s.pg.PrimaryURL,
			"SVC_DATABASE_REPLICA_URLS=" + s.pg.ReplicaURL,
			"SVC_REDIS_URL=" + s.redis.URL,
			"SVC_REDIS_NAMESPACE=" + ns,
			"SVC_TRUSTED_PROXIES=127.0.0.1",
			"SVC_DATABASE_MAX_CONNS=8",
			"SVC_DATABASE_REPLICA_MAX_LAG=3s",
			// The key's limit stays the SPEC's 60 a minute; the others are
			// raised so that the loads below are refused by nothing else.
			"SVC_LIMIT_ORG_PER_MINUTE=1000000", "SVC_LIMIT_IP_PER_MINUTE=1000000",
			fmt.Sprintf("SVC_LISTEN_ADDR=127.0.0.1:%d", port),
			fmt.Sprintf("SVC_SITE_URL=http://127.0.0.1:%d", port),
		}
		srv, err := harness.StartServer(e.bin.API, port, env, "serve")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := srv.Stop(); err != nil && !s.killed[i] {
				t.Error(err)
			}
		})
		s.replicas = append(s.replicas, srv)
		backends = append(backends, strings.TrimPrefix(srv.URL, "http://"))
	}
	t.Logf("three svc-api replicas: %.1f s", time.Since(phase).Seconds())
	if s.lb, err = harness.StartHAProxy(dir, backends); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.lb.Stop)
	return s
}

// keysCreate creates a key with the keys-admin binary on dbURL.
func keysCreate(ctx context.Context, e *env, dbURL string, s keySpec) (key, id string, err error) {
	out, errOut, code, err := harness.Run(ctx, e.bin.KeysAdmin, []string{"SVC_DATABASE_URL=" + dbURL}, "",
		"create", "--org", s.org, "--user", s.user, "--scopes", s.scopes, "--expires-in-days", "30", "--name", s.name)
	if err != nil || code != 0 {
		return "", "", fmt.Errorf("keys-admin create %s: exit %d %v\n%s", s.name, code, err, errOut)
	}
	fields := strings.Fields(errOut)
	if len(fields) < 2 || !strings.HasPrefix(fields[1], "key_") {
		return "", "", fmt.Errorf("keys-admin create %s: unexpected stderr %q", s.name, errOut)
	}
	key = strings.TrimSpace(out)
	e.rec.secret(key)
	return key, fields[1], nil
}

const scalePath = "/api/v1/developer/accounts?limit=2"

// scaleResult is one request's outcome through the load balancer.
type scaleResult struct {
	status    int // 0: no answer (err)
	err       error
	rateLimit string // the RateLimit header: the limiter charged the request
}

// paced sends, for each key, n GETs one every gap, from its own source
// address, through the load balancer; event (if not nil) runs once when
// after requests have been answered, so that it falls in the middle of the
// load however fast the machine is.
func (s *scale) paced(t *testing.T, keys []string, n int, gap time.Duration, after int, event func()) []scaleResult {
	t.Helper()
	var (
		mu   sync.Mutex
		out  []scaleResult
		wg   sync.WaitGroup
		mid  = make(chan struct{})
		once sync.Once
	)
	for i, k := range keys {
		client := harness.ClientFrom(fmt.Sprintf("127.0.0.%d", 40+i))
		wg.Go(func() {
			tick := time.NewTicker(gap)
			defer tick.Stop()
			for range n {
				resp, _, err := harness.Get(context.Background(), client, s.lb.URL+scalePath, s.keys[k])
				r := scaleResult{err: err}
				if err == nil {
					r.status, r.rateLimit = resp.StatusCode, resp.Header.Get("RateLimit")
				}
				mu.Lock()
				out = append(out, r)
				if len(out) >= after {
					once.Do(func() { close(mid) })
				}
				mu.Unlock()
				<-tick.C
			}
		})
	}
	if event != nil {
		all := make(chan struct{})
		go func() { wg.Wait(); close(all) }()
		select {
		case <-mid:
			event()
		case <-all:
			t.Errorf("the load ended before its %d-th answer: the event did not run", after)
		}
	}
	wg.Wait()
	return out
}

func count(rs []scaleResult) map[int]int {
	m := map[int]int{}
	for _, r := range rs {
		m[r.status]++
	}
	return m
}

// testScaleRateLimit: 75 concurrent requests of one key, spread by HAProxy
// over three replicas on a Redis Cluster: exactly 60 are allowed (the key's
// bucket and its organization's share one slot, so the Cluster adds no
// error to the key's limit; README "Production" states the bound).
func testScaleRateLimit(t *testing.T, s *scale) {
	var (
		mu  sync.Mutex
		got = map[int]int{}
		wg  sync.WaitGroup
	)
	for w := range 5 {
		client := harness.ClientFrom(fmt.Sprintf("127.0.0.%d", 30+w))
		wg.Go(func() {
			for range 15 {
				resp, _, err := harness.Get(t.Context(), client, s.lb.URL+scalePath, s.keys["rl"])
				mu.Lock()
				if err != nil {
					got[0]++
				} else {
					got[resp.StatusCode]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if got[200] != 60 || got[429] != 15 || len(got) != 2 {
		t.Fatalf("75 requests of one key through the load balancer: %v, want exactly 60×200 and 15×429", got)
	}
	t.Logf("75 requests of one key over 3 replicas: %v", got)
}

// testScaleRevocation: a key revoked on the primary is refused on the very
// next request through every replica and through the load balancer.
func testScaleRevocation(t *testing.T, s *scale) {
	for _, r := range s.replicas {
		resp, _, err := harness.Get(t.Context(), http.DefaultClient, r.URL+scalePath, s.keys["rev"])
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("before revocation, %s: %v %v", r.URL, err, resp)
		}
	}
	org := scaleKeys["rev"]
	out, errOut, code, err := harness.Run(t.Context(), s.e.bin.KeysAdmin, []string{"SVC_DATABASE_URL=" + s.pg.PrimaryURL}, "",
		"revoke", "--org", org, "--user", s.e.fix.Owner[org], s.keyIDs["rev"])
	if err != nil || code != 0 {
		t.Fatalf("keys-admin revoke: exit %d %v\n%s%s", code, err, out, errOut)
	}
	for _, u := range []string{s.replicas[0].URL, s.replicas[1].URL, s.replicas[2].URL, s.lb.URL} {
		resp, _, err := harness.Get(t.Context(), http.DefaultClient, u+scalePath, s.keys["rev"])
		if err != nil || resp.StatusCode != 401 {
			t.Fatalf("after revocation, %s: %v %v, want 401 at once", u, err, resp)
		}
	}
}

// readyz returns a replica's /readyz status and its databaseReplicas detail,
// read from url, the replica's metrics listener.
func readyz(t *testing.T, url string) (int, []map[string]any) {
	t.Helper()
	resp, body, err := harness.Get(t.Context(), http.DefaultClient, url+"/readyz", "")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Checks struct {
			Replicas []map[string]any `json:"databaseReplicas"`
		} `json:"checks"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("/readyz body %q: %v", body, err)
	}
	return resp.StatusCode, v.Checks.Replicas
}

// sql runs statements on a server of the pair.
func sql(t *testing.T, url string, stmts ...string) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, q := range stmts {
		if _, err := conn.Exec(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// accountsBody returns the body of an accounts page read through the load
// balancer with key p1.
func (s *scale) accountsBody(t *testing.T) string {
	t.Helper()
	resp, body, err := harness.Get(t.Context(), http.DefaultClient, s.lb.URL+scalePath, s.keys["p1"])
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("accounts: %v %v", err, resp)
	}
	return string(body)
}

// testScaleReplicaLag: the snapshot reads are served by the replica (its
// replay paused, a change on the primary is not seen), and once its lag
// passes --database-replica-max-lag (3 s here) it is skipped: reads see
// the primary, /readyz gives the lag and the reason; replay resumed, the
// replica is used again.
func testScaleReplicaLag(t *testing.T, s *scale) {
	// A fresh commit replayed, so that the lag starts from zero.
	sql(t, s.pg.PrimaryURL, "CREATE TABLE IF NOT EXISTS scale_tick (n int)", "INSERT INTO scale_tick VALUES (1)")
	waitReplica(t, s, func(r map[string]any) bool { return r["healthy"] == true && r["lagSeconds"] == 0.0 })
	sql(t, s.pg.ReplicaURL, "SELECT pg_wal_replay_pause()")
	resumed := false
	defer func() {
		if !resumed {
			sql(t, s.pg.ReplicaURL, "SELECT pg_wal_replay_resume()")
		}
	}()
	const probe = "Replica probe 5f1c"
	sql(t, s.pg.PrimaryURL, "UPDATE ad_accounts SET account_name = '"+probe+"' WHERE organization_id = '"+harness.OrgAlpha+"'")
	if b := s.accountsBody(t); strings.Contains(b, probe) {
		t.Fatal("a read right after a change on the primary saw it while the replica's replay is paused: reads do not go to the replica")
	}
	waitReplica(t, s, func(r map[string]any) bool {
		reason, _ := r["reason"].(string)
		return r["healthy"] == false && strings.Contains(reason, "lags")
	})
	if b := s.accountsBody(t); !strings.Contains(b, probe) {
		t.Fatal("the replica lags past the bound and reads still do not see the primary")
	}
	sql(t, s.pg.ReplicaURL, "SELECT pg_wal_replay_resume()")
	resumed = true
	waitReplica(t, s, func(r map[string]any) bool { return r["healthy"] == true })
	if b := s.accountsBody(t); !strings.Contains(b, probe) {
		t.Fatal("replay resumed: the replica should have the change")
	}
}

// waitReplica waits up to 10 s until the /readyz of every running svc-api
// replica (each checks the read replica on its own) shows the read replica
// in a state ok accepts.
func waitReplica(t *testing.T, s *scale, ok func(map[string]any) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for i, r := range s.replicas {
		if s.killed[i] {
			continue
		}
		var (
			code int
			reps []map[string]any
		)
		if !harness.Eventually(t.Context(), time.Until(deadline), 100*time.Millisecond, func() bool {
			code, reps = readyz(t, s.metrics[i])
			return code == 200 && len(reps) == 1 && ok(reps[0])
		}) {
			t.Fatalf("%s: the read replica did not reach the expected state within 10 s: /readyz %d %v", r.URL, code, reps)
		}
		if i == 0 {
			t.Logf("/readyz replica detail %v", reps)
		}
	}
}

// waitReadyz waits up to 10 s until svc-api replica r's /readyz answers 200
// with one read replica in a state ok accepts, and returns that detail.
func waitReadyz(t *testing.T, metrics string, what string, ok func(map[string]any) bool) []map[string]any {
	t.Helper()
	var (
		code int
		reps []map[string]any
	)
	if !harness.Eventually(t.Context(), 10*time.Second, 100*time.Millisecond, func() bool {
		code, reps = readyz(t, metrics)
		return code == 200 && len(reps) == 1 && ok(reps[0])
	}) {
		t.Fatalf("%s within 10 s: /readyz %d %v", what, code, reps)
	}
	return reps
}

// testScalePostgresReplicaKilled: the read replica is in use (healthy, its
// lag in /readyz); killed in the middle of a load, every request still
// gets 200 (reads move to the primary), /readyz says why, and a replica's
// log says so.
func testScalePostgresReplicaKilled(t *testing.T, s *scale) {
	reps := waitReadyz(t, s.metrics[0], "the read replica is not in use", func(r map[string]any) bool { return r["healthy"] == true })
	t.Logf("before: /readyz replica detail %v", reps)
	rs := s.paced(t, []string{"p1", "p2", "p3", "p4"}, 40, 40*time.Millisecond, 60, func() {
		if err := s.pg.KillReplica(); err != nil {
			t.Error(err)
		}
	})
	if c := count(rs); c[200] != len(rs) {
		t.Fatalf("PostgreSQL replica killed mid-load: %v of %d requests, want all 200", c, len(rs))
	}
	// The replica's next check (at most a check interval and the /readyz
	// cache away) finds it gone.
	reps = waitReadyz(t, s.metrics[0], "after the replica's loss, want 200 with the replica unhealthy and a reason",
		func(r map[string]any) bool { return r["healthy"] == false && r["reason"] != "" && r["reason"] != nil })
	logged := false
	for _, r := range s.replicas {
		l := r.Logs.String() // (ReplicaLag logged a skip for lag already)
		logged = logged || strings.Contains(l, "read replica skipped after a failed read") || strings.Contains(l, `"reason":"unreachable"`)
	}
	if !logged {
		t.Fatal("no replica logged that the read replica was skipped")
	}
	t.Logf("PostgreSQL replica killed mid-load: %d requests, all 200; after: %v", len(rs), reps)
}

// testScaleReplicaKilled: one svc-api replica killed (SIGKILL) in the
// middle of a load: HAProxy retries what it may (connection failures,
// empty responses, on another server) and every request gets 200.
func testScaleReplicaKilled(t *testing.T, s *scale) {
	rs := s.paced(t, []string{"k1", "k2", "k3", "k4"}, 40, 40*time.Millisecond, 60, func() {
		s.killed[2] = true
		if err := s.replicas[2].Signal(os.Kill); err != nil {
			t.Error(err)
		}
	})
	if c := count(rs); c[200] != len(rs) {
		for _, r := range rs {
			if r.err != nil {
				t.Log(r.err)
				break
			}
		}
		t.Fatalf("svc-api replica killed mid-load: %v of %d requests, want all 200", c, len(rs))
	}
	t.Logf("svc-api replica killed mid-load: %d requests, all 200", len(rs))
}

// testScaleRedisNodeDown: one master of the Redis Cluster killed: requests
// are refused with 503 (fail closed) — at once for the buckets on that
// master, for all once the Cluster marks itself failed — and no request is
// served without its limiter charge (every 200 carries RateLimit). /readyz
// stays ready on every replica throughout (issue 36): while some master
// serves, and also once the Cluster has marked itself failed, when the
// surviving masters answer CLUSTERDOWN to every replica alike, which a load
// balancer taking replicas out cannot fix (ratelimit.ProbeNodes).
func testScaleRedisNodeDown(t *testing.T, s *scale) {
	s.redis.Kill(0)
	rs := s.paced(t, []string{"d1", "d2", "d3"}, 25, 100*time.Millisecond, 0, nil)
	c := count(rs)
	for _, r := range rs {
		if r.status == 200 && r.rateLimit == "" {
			t.Fatal("a 200 without a RateLimit header while a Redis master is down: an unprotected read")
		}
		if r.status != 200 && r.status != 503 {
			t.Fatalf("Redis master down: a %d (%v), want 503 or a charged 200", r.status, r.err)
		}
	}
	if c[503] == 0 {
		t.Fatalf("Redis master down: %v, want 503s", c)
	}
	// Once the Cluster has marked itself failed (node timeout 2 s: the
	// surviving masters say cluster_state:fail), every request is refused.
	for i := 1; i < len(s.redis.Addrs); i++ {
		if !harness.Eventually(t.Context(), 15*time.Second, 50*time.Millisecond, func() bool {
			return strings.Contains(s.redis.Info(t.Context(), i), "cluster_state:fail")
		}) {
			t.Fatalf("Redis master %d does not report the Cluster failed 15 s after master 0 died:\n%s", i, s.redis.Info(t.Context(), i))
		}
	}
	tail := s.paced(t, []string{"d1", "d2", "d3"}, 5, 50*time.Millisecond, 0, nil)
	if ct := count(tail); ct[503] != len(tail) {
		t.Fatalf("Redis Cluster failed: %v, want all 503", ct)
	}
	for _, r := range s.replicas[:2] {
		if resp, _, err := harness.Get(t.Context(), http.DefaultClient, r.URL+"/readyz", ""); err != nil || resp.StatusCode != 200 {
			t.Fatalf("Redis Cluster failed: %s/readyz %v %v, want 200 (the masters that answer refuse every replica alike)", r.URL, resp, err)
		}
	}
	t.Logf("Redis master killed: %v over 2.5 s, then all 503", c)
}
