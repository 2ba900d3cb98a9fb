package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/adsnap/svc/e2e/internal/harness"
)

// TestHostile is the `hostile` group (issue #22): hostile clients and
// failing dependencies against two built replicas on real PostgreSQL and a
// redis-server of the test's own (the shared Redis is never stopped). It
// prints its figures. Run it alone with go test -count=1 -run TestHostile -v .
func TestHostile(t *testing.T) {
	e := setup(t)
	began := time.Now()
	h := newHostile(t, e)
	for _, sc := range []struct {
		name string
		run  func(*testing.T, *hostile)
	}{
		{"RedisStopped", testRedisStopped},
		{"PostgresStalled", testPostgresStalled},
		{"IdleConnections", testIdleConnections},
		{"RunawayKey", testRunawayKey},
		{"ReadyzFlood", testReadyzFlood},
		{"HostileRequests", testHostileRequests},
		{"LogsAreJSON", testLogsAreJSON}, // last: reads every line the others caused
	} {
		t.Run(sc.name, func(t *testing.T) { sc.run(t, h) })
	}
	t.Logf("hostile group: %.1f s", time.Since(began).Seconds())
}

// hostile is the group's system: a redis-server of its own, PostgreSQL
// behind a proxy the test controls, and two replicas with limits raised
// (the runaway-key scenario starts its own with tight limits), each under a
// file-descriptor limit of 4096 so that a connection flood that is not
// capped shows.
type hostile struct {
	e        *env
	redis    *harness.RedisServer
	pg       *harness.Proxy
	replicas []*harness.Server
	all      []*harness.Server // every replica started, for the log check
}

const hostileNofile = 4096

func newHostile(t *testing.T, e *env) *hostile {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if lim.Cur < 12000 && lim.Max > lim.Cur { // Go raises it at start; make sure
		lim.Cur = lim.Max
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim) //nolint:errcheck
		syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) //nolint:errcheck
	}
	if lim.Cur < 12000 {
		t.Fatalf("the hostile group opens 5,000 connections and needs RLIMIT_NOFILE >= 12000, have %d (raise the hard limit: ulimit -Hn)", lim.Cur)
	}
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Fatalf("prlimit (util-linux) is required to start replicas under a file-descriptor limit: apt-get install util-linux")
	}
	h := &hostile{e: e}
	var err error
	if h.redis, err = harness.StartRedis(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.redis.Stop)
	if h.pg, err = harness.NewProxy(hostPort(e.dbURL)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.pg.Close)
	h.replicas = h.start(t, withHost(e.dbURL, h.pg.Addr()),
		"SVC_LIMIT_KEY_PER_MINUTE=1000000", "SVC_LIMIT_ORG_PER_MINUTE=1000000", "SVC_LIMIT_IP_PER_MINUTE=1000000")
	return h
}

// start starts two replicas on dbURL and the group's Redis (a fresh
// namespace), stopped when the test ends.
func (h *hostile) start(t *testing.T, dbURL string, extra ...string) []*harness.Server {
	t.Helper()
	ns := "hostile" + harness.RandomHex(4)
	var out []*harness.Server
	for range 2 {
		port, err := harness.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		env := append([]string{
			"SVC_DATABASE_URL=" + dbURL,
			"SVC_REDIS_URL=redis://" + h.redis.Addr + "/0",
			"SVC_REDIS_NAMESPACE=" + ns,
			fmt.Sprintf("SVC_LISTEN_ADDR=127.0.0.1:%d", port),
			fmt.Sprintf("SVC_SITE_URL=http://127.0.0.1:%d", port),
		}, extra...)
		s, err := harness.StartServer("prlimit", port, env, fmt.Sprintf("--nofile=%d", hostileNofile), "--", h.e.bin.API, "serve")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := s.Stop(); err != nil {
				t.Error(err)
			}
		})
		out = append(out, s)
		h.all = append(h.all, s)
	}
	return out
}

// sample is one request's outcome.
type sample struct {
	status  int // 0: no answer
	took    time.Duration
	timeout bool
	retry   string // Retry-After
	body    string // of an answer other than 200
}

// loadRun is what a load saw.
type loadRun struct {
	samples []sample
}

func (l *loadRun) statuses() map[int]int {
	m := map[int]int{}
	for _, s := range l.samples {
		m[s.status]++
	}
	return m
}

func (l *loadRun) timeouts() int {
	n := 0
	for _, s := range l.samples {
		if s.timeout {
			n++
		}
	}
	return n
}

// quantile of the latencies, q in [0, 1].
func (l *loadRun) quantile(q float64) time.Duration {
	return quantile(l.samples, q)
}

func quantile(ss []sample, q float64) time.Duration {
	if len(ss) == 0 {
		return 0
	}
	d := make([]time.Duration, len(ss))
	for i, s := range ss {
		d[i] = s.took
	}
	slices.Sort(d)
	return d[min(len(d)-1, int(q*float64(len(d))))]
}

// do sends one GET with the SPEC's 15 s client time-out.
func do(ctx context.Context, client *http.Client, url, key string) sample {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	start := time.Now()
	resp, body, err := harness.Get(ctx, client, url, key)
	s := sample{took: time.Since(start)}
	if err != nil {
		var ne net.Error
		s.timeout = errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
		return s
	}
	s.status, s.retry = resp.StatusCode, resp.Header.Get("Retry-After")
	if s.status != http.StatusOK {
		s.body = string(body)
	}
	return s
}

// load runs workers concurrent clients, spread over source addresses
// 127.0.0.<ipBase>.. (at most 20 clients per address, well within the
// per-IP connection cap), each sending GET path in a loop, alternating
// replicas, for d.
func (h *hostile) load(t *testing.T, workers, ipBase int, path, key string, d time.Duration) *loadRun {
	t.Helper()
	var (
		mu  sync.Mutex
		run loadRun
		wg  sync.WaitGroup
	)
	clients := map[int]*http.Client{}
	for i := range workers {
		if clients[i/20] == nil {
			clients[i/20] = harness.ClientFrom(fmt.Sprintf("127.0.0.%d", ipBase+i/20))
		}
	}
	stop := time.Now().Add(d)
	for i := range workers {
		client := clients[i/20]
		wg.Go(func() {
			for n := i; time.Now().Before(stop); n++ {
				s := do(t.Context(), client, h.replicas[n%2].URL+path, key)
				mu.Lock()
				run.samples = append(run.samples, s)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return &run
}

// recovery polls both replicas every 20 ms until each answers 200, and
// returns how long that took (at most 10 s).
func (h *hostile) recovery(t *testing.T, key string) time.Duration {
	t.Helper()
	client := harness.ClientFrom("127.0.0.99")
	start := time.Now()
	for i, r := range h.replicas {
		if !harness.Eventually(t.Context(), 10*time.Second-time.Since(start), 20*time.Millisecond, func() bool {
			return do(t.Context(), client, r.URL+"/api/v1/developer/accounts", key).status == http.StatusOK
		}) {
			t.Fatalf("replica %d still refuses 10 s after the dependency returned", i)
		}
	}
	return time.Since(start)
}

// wantFastRefusals checks a load against a stalled dependency: every
// request answered, all 503 with Retry-After, no time-out, and p99 ≤ 1.5 s
// (the 1 s database deadline and its overhead) under make bench; make test,
// on a shared machine that may be loaded, holds the p99 to 5 s, which still
// fails a server that waits on the stalled dependency (15 s client
// time-out, the 30 s of a request's life).
func wantFastRefusals(t *testing.T, what string, run *loadRun) {
	t.Helper()
	st := run.statuses()
	t.Logf("%s: %d requests from 200 clients: statuses %v, p50 %s, p99 %s, max %s, client time-outs %d",
		what, len(run.samples), st, run.quantile(0.5).Round(time.Millisecond), run.quantile(0.99).Round(time.Millisecond),
		run.quantile(1).Round(time.Millisecond), run.timeouts())
	if len(run.samples) < 200 || st[http.StatusServiceUnavailable] != len(run.samples) {
		t.Errorf("%s: want every request answered 503, got %v", what, st)
	}
	if n := run.timeouts(); n != 0 {
		t.Errorf("%s: %d client time-outs", what, n)
	}
	bound := 5 * time.Second
	if timingVerdicts() {
		bound = 1500 * time.Millisecond
	}
	if p99 := run.quantile(0.99); p99 > bound {
		t.Errorf("%s: p99 %s, want at most %s", what, p99, bound)
	}
	for _, s := range run.samples {
		if s.status == http.StatusServiceUnavailable && s.retry == "" {
			t.Errorf("%s: a 503 without Retry-After", what)
			break
		}
	}
}

func testRedisStopped(t *testing.T, h *hostile) {
	key := h.e.keys["alpha_aci"]
	h.recovery(t, key)
	if err := h.redis.Pause(); err != nil { // SIGSTOP to the group's own redis-server
		t.Fatal(err)
	}
	run := h.load(t, 200, 100, "/api/v1/developer/accounts", key, 4*time.Second)
	if err := h.redis.Resume(); err != nil {
		t.Fatal(err)
	}
	back := h.recovery(t, key)
	wantFastRefusals(t, "redis SIGSTOP", run)
	t.Logf("redis SIGCONT: 200 on both replicas after %s", back.Round(time.Millisecond))
	if back > 2*time.Second {
		t.Errorf("200 again %s after SIGCONT, want within 2 s", back)
	}
}

func testPostgresStalled(t *testing.T, h *hostile) {
	key := h.e.keys["alpha_aci"]
	h.recovery(t, key)
	h.pg.Set(harness.Freeze) // open connections hang mid-conversation, new ones never answer
	run := h.load(t, 200, 100, "/api/v1/developer/accounts", key, 4*time.Second)
	h.pg.Set(harness.Forward)
	back := h.recovery(t, key)
	wantFastRefusals(t, "postgres stalled", run)
	t.Logf("postgres restored: 200 on both replicas after %s", back.Round(time.Millisecond))
	if back > 2*time.Second {
		t.Errorf("200 again %s after the restore, want within 2 s", back)
	}
}

// sequential sends n requests one after the other from client and returns them.
func sequential(t *testing.T, client *http.Client, url, key string, n int) *loadRun {
	t.Helper()
	run := &loadRun{}
	for range n {
		s := do(t.Context(), client, url, key)
		if s.status != http.StatusOK {
			t.Fatalf("GET %s: %d %s (time-out %v)", url, s.status, s.body, s.timeout)
		}
		run.samples = append(run.samples, s)
	}
	return run
}

// rounds measures a victim's p99 with and without a load, interleaved
// over n rounds, and returns the lowest p99 of each: the machine running
// the suite is shared, and a round that another process's burst hit says
// nothing about this server. on starts the load and returns its stop.
func rounds(t *testing.T, n int, victim *http.Client, url, key string, on func() (stop func())) (base, loaded time.Duration) {
	t.Helper()
	sequential(t, victim, url, key, 50) // warm up
	for i := range n {
		b := sequential(t, victim, url, key, 400).quantile(0.99)
		stop := on()
		l := sequential(t, victim, url, key, 400).quantile(0.99)
		stop()
		if i == 0 || b < base {
			base = b
		}
		if i == 0 || l < loaded {
			loaded = l
		}
	}
	return base, loaded
}

func testIdleConnections(t *testing.T, h *hostile) {
	key := h.e.keys["alpha_aci"]
	target := h.replicas[0]
	addr := strings.TrimPrefix(target.URL, "http://")
	_, portText, _ := strings.Cut(addr, ":")
	port, err := strconv.Atoi(portText)
	if err != nil {
		t.Fatalf("replica address %s: %v", addr, err)
	}
	victim := harness.ClientFrom("127.0.0.120")
	url := target.URL + "/api/v1/developer/accounts?limit=5"
	var connected, failed, kept int
	// 5,000 connections from one IP that send nothing, held while the
	// victim is measured.
	flood := func() (stop func()) {
		var (
			mu    sync.Mutex
			conns []net.Conn
			wg    sync.WaitGroup
			next  atomic.Int64
			fails atomic.Int64
		)
		d := &net.Dialer{Timeout: 3 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.121")}}
		for range 32 {
			wg.Go(func() {
				for next.Add(1) <= 5000 {
					c, err := d.DialContext(t.Context(), "tcp", addr)
					if err != nil {
						fails.Add(1)
						continue
					}
					mu.Lock()
					conns = append(conns, c)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		// The measurement is of idle connections, not of their arrival: it
		// starts once the server's accept loop has taken every connection
		// the kernel queued for it.
		if !harness.Eventually(t.Context(), 30*time.Second, 10*time.Millisecond, func() bool {
			n, err := harness.AcceptQueue(port)
			if err != nil {
				t.Fatal(err)
			}
			return n == 0
		}) {
			t.Fatal("the server's accept queue did not drain within 30 s")
		}
		return func() {
			// How many of them the server kept.
			open := 0
			for _, c := range conns {
				c.SetReadDeadline(time.Now().Add(time.Millisecond))
				var b [1]byte
				var ne net.Error
				if _, err := c.Read(b[:]); errors.As(err, &ne) && ne.Timeout() {
					open++
				}
				c.Close()
			}
			connected, failed, kept = len(conns), int(fails.Load()), max(kept, open)
		}
	}
	var b99, d99 time.Duration
	n, tries := timingRounds(3)
	for attempt := 1; attempt <= tries; attempt++ {
		b99, d99 = rounds(t, n, victim, url, key, flood)
		t.Logf("5,000 idle connections from one IP (%d connected, %d dial failures, at most %d kept open by the server); other client's p99 %s unloaded, %s loaded (%.2f×; lowest of %d interleaved rounds each; attempt %d%s)",
			connected, failed, kept, b99.Round(10*time.Microsecond), d99.Round(10*time.Microsecond), float64(d99)/float64(b99), n, attempt, timingNote())
		if d99 <= 2*b99+noiseFloor {
			break
		}
	}
	if timingVerdicts() && d99 > 2*b99+noiseFloor {
		t.Errorf("another client's p99 went from %s to %s, want within 2× (+%s, the shared machine's noise) in one of %d attempts", b99, d99, noiseFloor, attempts)
	}
	// The count races with closes in flight (a connection the server
	// released a moment ago, and its successor): a few over the cap are that.
	if kept > 64+4 {
		t.Errorf("%d idle connections of one IP kept open, want about the cap (64)", kept)
	}
}

func testRunawayKey(t *testing.T, h *hostile) {
	// Tight limits so that the scenario takes seconds: 20 per minute per
	// key, 40 per organization. Both keys belong to org alpha.
	replicas := h.start(t, h.e.dbURL, "SVC_LIMIT_KEY_PER_MINUTE=20", "SVC_LIMIT_ORG_PER_MINUTE=40")
	runaway, polite := h.e.keys["alpha_a"], h.e.keys["alpha_ac"]
	rc, pc := harness.ClientFrom("127.0.0.130"), harness.ClientFrom("127.0.0.131")
	const d = 6 * time.Second
	var wg sync.WaitGroup
	var rs, ps []sample
	wg.Go(func() { // 10 requests a second
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for i, stop := 0, time.Now().Add(d); time.Now().Before(stop); i++ {
			<-tick.C
			rs = append(rs, do(t.Context(), rc, replicas[i%2].URL+"/api/v1/developer/accounts?limit=1", runaway))
		}
	})
	wg.Go(func() { // 1 a second
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for i, stop := 0, time.Now().Add(d); time.Now().Before(stop); i++ {
			<-tick.C
			ps = append(ps, do(t.Context(), pc, replicas[i%2].URL+"/api/v1/developer/accounts?limit=1", polite))
		}
	})
	wg.Wait()
	count := func(ss []sample) map[int]int {
		m := map[int]int{}
		for _, s := range ss {
			m[s.status]++
		}
		return m
	}
	rc2, pc2 := count(rs), count(ps)
	t.Logf("runaway key at 10/s: %v; polite key of the same organization at 1/s: %v", rc2, pc2)
	if pc2[http.StatusTooManyRequests] != 0 || pc2[http.StatusOK] != len(ps) || len(ps) < 5 {
		t.Errorf("polite key: %v, want every request 200", pc2)
	}
	if rc2[http.StatusTooManyRequests] == 0 {
		t.Errorf("the runaway key was never refused (%v): the scenario proves nothing", rc2)
	}
}

// noiseFloor is added to the latency ratios' bounds: on the shared 2-core
// machine the suite runs on, any extra runnable thread moves a
// millisecond-scale p99 by about this much, whatever this server does. The
// figures printed are the measured ones.
const noiseFloor = 2 * time.Millisecond

// attempts is how many times a latency comparison is measured before it
// fails: a regression fails every attempt, another process's burst rarely
// three in a row.
const attempts = 3

// timingVerdicts reports whether the latency ratios of this group fail the
// test: only under make bench (scripts/bench.sh sets SVC_BENCH_TIMING=1 and
// runs the IdleConnections and ReadyzFlood scenarios), on a machine the
// benchmark has to itself. Under make test the scenarios run once, for
// what they check besides (the connection cap, the limiter calls of a
// /readyz flood), and print the ratio: a ratio of two p99s measured on a
// shared, loaded machine says more about the machine than about svc-api.
func timingVerdicts() bool { return os.Getenv("SVC_BENCH_TIMING") == "1" }

// timingRounds returns how many interleaved rounds a latency comparison
// measures (full under make bench, one otherwise) and how many attempts it
// has.
func timingRounds(full int) (rounds, tries int) {
	if timingVerdicts() {
		return full, attempts
	}
	return 1, 1
}

// timingNote says, in a scenario's figures, who judges the ratio.
func timingNote() string {
	if timingVerdicts() {
		return ""
	}
	return "; the ratio is judged by make bench"
}

func testReadyzFlood(t *testing.T, h *hostile) {
	key := h.e.keys["alpha_aci"]
	target := h.replicas[0]
	victim := harness.ClientFrom("127.0.0.140")
	url := target.URL + "/api/v1/developer/accounts?limit=5"
	var probes, notOK atomic.Int64
	flood := harness.ClientFrom("127.0.0.141")
	// The flood: about 200 /readyz a second from another address, two
	// hundred times what a load balancer sends; before the check was cached,
	// each one pinged PostgreSQL and Redis.
	on := func() (stop func()) {
		ctx, cancel := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				tick := time.NewTicker(10 * time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-ctx.Done():
						return
					case <-tick.C:
					}
					s := do(ctx, flood, target.URL+"/readyz", "")
					probes.Add(1)
					if s.status != http.StatusOK && ctx.Err() == nil {
						notOK.Add(1)
					}
				}
			})
		}
		// The measurement starts once the flood does.
		from := probes.Load()
		if !harness.Eventually(ctx, 10*time.Second, 5*time.Millisecond, func() bool { return probes.Load() >= from+4 }) {
			t.Fatal("the /readyz flood did not start within 10 s")
		}
		return func() { cancel(); wg.Wait() }
	}
	var b99, d99 time.Duration
	callsBefore, floodStart := h.redisCalls(t), time.Now()
	victimCalls := 0
	n, tries := timingRounds(4)
	for attempt := 1; attempt <= tries; attempt++ {
		b99, d99 = rounds(t, n, victim, url, key, on)
		victimCalls += n*2*400 + 50 // one limiter script per API request
		t.Logf("/readyz flood (%d probes, %d not 200): real requests' p99 %s unloaded, %s during the flood (%.2f×; lowest of %d interleaved rounds each; attempt %d%s)",
			probes.Load(), notOK.Load(), b99.Round(10*time.Microsecond), d99.Round(10*time.Microsecond), float64(d99)/float64(b99), n, attempt, timingNote())
		if d99 <= b99*3/2+noiseFloor {
			break
		}
	}
	if timingVerdicts() && d99 > b99*3/2+noiseFloor {
		t.Errorf("real requests' p99 went from %s to %s under a /readyz flood, want within 1.5× (+%s, the shared machine's noise)", b99, d99, noiseFloor)
	}
	// The mechanism, without the noise: the flood made the replica check its
	// dependencies at most once a second (each check is one script in the
	// group's Redis).
	if calls := h.redisCalls(t) - callsBefore - victimCalls; calls > int(time.Since(floodStart).Seconds())+3 {
		t.Errorf("%d probes made %d limiter calls in %s, want at most one a second", probes.Load(), calls, time.Since(floodStart).Round(time.Millisecond))
	} else {
		t.Logf("/readyz flood: %d limiter calls in %s", calls, time.Since(floodStart).Round(time.Millisecond))
	}
}

// redisCalls is how many scripts the group's redis-server has run.
func (h *hostile) redisCalls(t *testing.T) int {
	t.Helper()
	c, err := net.DialTimeout("tcp", h.redis.Addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte("*2\r\n$4\r\nINFO\r\n$12\r\ncommandstats\r\n")); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	buf := make([]byte, 8192)
	for !strings.HasSuffix(b.String(), "\r\n\r\n") {
		n, err := c.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	calls := 0
	for _, line := range strings.Split(b.String(), "\r\n") {
		if strings.HasPrefix(line, "cmdstat_evalsha:") || strings.HasPrefix(line, "cmdstat_eval:") {
			var n int
			fmt.Sscanf(line[strings.IndexByte(line, ':')+1:], "calls=%d", &n)
			calls += n
		}
	}
	return calls
}

// testHostileRequests: through the built server (net/http's own limits
// included), oversized headers get the JSON error body, HEAD works, a key
// in the URL however encoded is 400, an X-Request-Id holding a key is
// replaced (issue #19 point 5, #22 points 5, 7, 9).
func testHostileRequests(t *testing.T, h *hostile) {
	key := h.e.keys["alpha_aci"]
	body := strings.TrimPrefix(key, "svc_live_")
	client := harness.ClientFrom("127.0.0.150")
	r := h.replicas[0]
	send := func(method, target string, header map[string]string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), method, r.URL+target, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+key)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return resp, b.String()
	}
	resp, b := send("GET", "/api/v1/developer/accounts", map[string]string{"X-Padding": strings.Repeat("p", 20<<10)})
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || !json.Valid([]byte(b)) {
		t.Errorf("20 KiB of headers: %d %q %.100s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	if resp, _ := send("HEAD", "/api/v1/developer/accounts", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("HEAD: %d", resp.StatusCode)
	}
	for _, target := range []string{
		"/api/v1/developer/accounts?limit=5%note=svc%5Flive_" + body,
		"/api/v1/developer/accounts?limit=5;note=" + key,
		"/api/v1/developer/accounts?note=" + body,
		"/api/v1/developer/accounts?note=svc%255Flive%255F" + body,
	} {
		if resp, _ := send("GET", target, nil); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%.60s…: %d, want 400", target, resp.StatusCode)
		}
	}
	if resp, _ := send("GET", "/api/v1/developer/%61ccounts", nil); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("%%61ccounts: %d", resp.StatusCode)
	}
	if resp, _ := send("GET", "/api/v1/developer/accounts", map[string]string{"X-Request-Id": key}); resp.Header.Get("X-Request-Id") == key {
		t.Error("an X-Request-Id holding a key is echoed")
	}
	if strings.Contains(r.Logs.String(), body) {
		t.Error("the replica logged a key")
	}
}

// testLogsAreJSON: every line the group's replicas wrote is JSON (go-redis's
// lines included), a Redis or PostgreSQL stall did not become a flood of
// lines, and no line holds a key.
func testLogsAreJSON(t *testing.T, h *hostile) {
	for i, s := range h.all {
		logs := s.Logs.String()
		lines := strings.Split(strings.TrimSpace(logs), "\n")
		for _, l := range lines {
			if !json.Valid([]byte(l)) {
				t.Errorf("replica %d wrote a line that is not JSON: %q", i, l)
				break
			}
		}
		for name, k := range h.e.keys {
			if strings.Contains(logs, k) {
				t.Errorf("replica %d logged key %s", i, name)
			}
		}
		failures := strings.Count(logs, `"msg":"rate limit store unavailable"`) + strings.Count(logs, `"msg":"database unavailable"`)
		t.Logf("replica %d: %d log lines, %d of them failure lines", i, len(lines), failures)
		if failures > 40 {
			t.Errorf("replica %d wrote %d failure lines over two 4 s stalls, want at most about one a second", i, failures)
		}
	}
	_ = os.Stderr
}
