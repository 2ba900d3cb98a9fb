//go:build failover

package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adsnap/svc/e2e/internal/harness"
)

// restartComeBack is how long the second replica of the rolling restart
// stays down before it is started again (an image pulled, a slow node):
// the issue measured the shipped configuration with 5 s and with none.
const restartComeBack = 5 * time.Second

// testFailoverRollingRestart: two replicas behind HAProxy running the
// shipped deploy/haproxy.cfg (only its bind and server addresses adapted to
// the test's ports), 200 requests/s in all (2/s, 20/s and 178/s, each key
// from its own address), restarted one after the other as an orchestrator
// does: SIGTERM, wait for the exit, start again, and wait until the load
// balancer sends it requests before the next; the first comes back at
// once, the second after 5 s. Target (issue 36): no failed request.
// SVC_DRAIN_DELAY is set for the drain the service is to get (issue 36,
// Build 3); a service without it ignores it.
func testFailoverRollingRestart(t *testing.T, f *failover) {
	env := append([]string{
		"SVC_DATABASE_URL=" + f.pg.PrimaryURL,
		"SVC_REDIS_URL=redis://" + f.e.redis + "/0",
		"SVC_REDIS_NAMESPACE=failover" + harness.RandomHex(4),
		"SVC_DRAIN_DELAY=3s",
		// The scenario is about restarts, not the limit store's latency:
		// with the default 250 ms, one replica serving all 200 requests/s
		// on the loaded 2-core machine missed the shared Redis's deadline
		// now and then (a fail-closed 503, "i/o timeout" in its log: 1 and
		// 25 requests in two runs of six).
		"SVC_REDIS_DEADLINE=1s",
	}, raised...)
	rs := make([]*harness.Server, 2)
	envs := make([][]string, 2)
	var backends []string
	for i := range rs {
		rs[i], envs[i] = f.startReplica(t, 0, env)
		backends = append(backends, strings.TrimPrefix(rs[i].URL, "http://"))
	}
	t.Cleanup(func() {
		for _, r := range rs {
			if r != nil {
				r.Stop() //nolint:errcheck // a replica that failed to start again is reported below
			}
		}
	})
	lb, err := harness.StartHAProxyFrom(t.TempDir(), filepath.Join(harness.RepoRoot(), "deploy", "haproxy.cfg"), backends)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lb.Stop)

	l := startLoad(t, []string{lb.URL},
		stream{"slow", f.keys["rr-slow"], 2, "127.0.0.2"},
		stream{"fast", f.keys["rr-fast"], 20, "127.0.0.3"},
		stream{"bulk", f.keys["rr-bulk"], 178, "127.0.0.4"})
	// Both replicas in rotation before the restart.
	for i, r := range rs {
		if !servesThroughLB(r, 15*time.Second) {
			t.Fatalf("replica %d gets no request through the load balancer within 15 s\n%s", i, lb.Logs)
		}
	}
	start := l.mark("rolling restart begins")
	for i := range rs {
		var wait time.Duration
		if i == 1 {
			wait = restartComeBack
		}
		down := l.mark(fmt.Sprintf("SIGTERM to replica %d", i))
		if err := rs[i].Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := rs[i].Wait(45 * time.Second); err != nil {
			t.Errorf("replica %d after SIGTERM: %v", i, err)
		}
		exited := l.mark("replica exited")
		if wait > 0 {
			// The scenario's premise, not a wait for an event: the replica
			// stays down this long.
			time.Sleep(wait)
		}
		srv, err := harness.StartServer(f.e.bin.API, urlPort(t, rs[i].URL), envs[i], "serve")
		if err != nil {
			rs[i] = nil
			t.Fatal(err)
		}
		rs[i] = srv
		started := l.mark("replica started again")
		if !servesThroughLB(srv, 30*time.Second) {
			t.Fatalf("replica %d gets no request through the load balancer within 30 s of its restart\n%s", i, lb.Logs)
		}
		back := l.mark("the load balancer sends it requests")
		t.Logf("replica %d: SIGTERM %s, exited %s, started %s, in rotation %s", i, rel(down, start), rel(exited, start), rel(started, start), rel(back, start))
	}
	end := l.mark("rolling restart done")
	// A second of load after the last replica is back.
	l.waitFor(2*time.Second, func([]shot) bool { return l.now() > end+time.Second })
	shots := l.stop()

	total, failed, codes := 0, 0, map[int]int{}
	var firstFail, lastFail time.Duration = -1, -1
	for _, s := range shots {
		if s.sent < start {
			continue
		}
		total++
		codes[s.status]++
		if s.status != http.StatusOK {
			failed++
			if firstFail < 0 {
				firstFail = s.sent
			}
			lastFail = s.sent
		}
	}
	t.Logf("rolling restart through deploy/haproxy.cfg: %d requests in %.1f s (%.0f/s), %d failed (%v), from %s to %s; %s",
		total, (end - start).Seconds(), float64(total)/(end-start+time.Second).Seconds(), failed, codes, rel(firstFail, start), rel(lastFail, start), firstError(shots))
	if failed > 0 {
		t.Errorf("%d of %d requests failed during the rolling restart (%v), want none", failed, total, codes)
		// What the replicas running at the end said went wrong (a 503 of
		// svc-api's own, or HAProxy's when it had no replica).
		for i, r := range rs {
			if r != nil {
				t.Logf("replica %d logged: %q", i, logErrors(r.Logs.String(), 4))
			}
		}
		var lines []string
		for _, line := range strings.Split(lb.Logs.String(), "\n") {
			if strings.Contains(line, " 503 ") && len(lines) < 5 {
				lines = append(lines, line)
			}
		}
		t.Logf("HAProxy's first 503 lines (its termination state tells its own from a replica's):\n%s", strings.Join(lines, "\n"))
	}
}

// servesThroughLB waits until the replica's access log shows an API
// request, which only the load balancer sends it: it is in rotation.
func servesThroughLB(r *harness.Server, limit time.Duration) bool {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if strings.Contains(r.Logs.String(), `"path":"/api/v1/developer/accounts"`) {
			return true
		}
	}
	return false
}

// urlPort returns the port of a base URL.
func urlPort(t *testing.T, base string) int {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatal(err)
	}
	return n
}
