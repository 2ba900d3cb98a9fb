package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adsnap/svc/e2e/internal/harness"
)

// pacingPerMinute is the per-key limit of the burst-then-pacing test,
// lowered by flag from the SPEC's 60 so that the test is short and its
// emission interval (2 s) is long beside a loaded machine's latencies.
const pacingPerMinute = 30

// answer is one request of the pacing test: when it left, when its answer
// came, and whether it was served. The replicas take the time of each
// decision from Redis (TIME), the machine's real clock, so each decision
// happened between sent and recv on the test's own clock.
type answer struct {
	sent, recv time.Time
	ok         bool
}

// testBurstThenPacing (issue 36, Build 4) holds the service to the semantics
// that the READMEs and the OpenAPI document state: a limit of N per minute
// is a GCRA bucket with burst N, so an idle key gets exactly N answers at
// once, then one per emission interval (a minute/N), and never more than
// N + ⌈w/interval⌉ − 1 in any window of w seconds (2N − 1 in a rolling
// minute). Measured over about 11 s with N = 30 (interval 2 s) on two
// replicas sharing Redis, against the servers' real clock.
func testBurstThenPacing(t *testing.T, e *env) {
	const (
		burst    = pacingPerMinute
		interval = time.Minute / pacingPerMinute
		span     = 5*interval + interval/4 // the burst, then five intervals
		poll     = 100 * time.Millisecond  // the pacing of the test's requests after the burst
		// tolerance covers the poll and a request's latency on a loaded
		// 2-core machine: a paced answer comes at most this late.
		tolerance = interval / 2
	)
	replicas := e.startLimitReplicas(t, "--limit-key-per-minute", fmt.Sprint(pacingPerMinute),
		"--limit-org-per-minute", "1000000", "--limit-ip-per-minute", "1000000")
	client := harness.ClientFrom("127.0.0.25")
	key := e.keys["gamma"]
	policy := fmt.Sprintf(`"key";q=%d;w=60, "org";q=1000000;w=60, "ip";q=1000000;w=60`, pacingPerMinute)
	var (
		mu      sync.Mutex
		answers []answer
	)
	// send sends request i and records its answer (safe from several
	// goroutines).
	send := func(i int) (answer, error) {
		sent := time.Now()
		resp, body, err := harness.Get(t.Context(), client, replicas[i%2].URL+"/api/v1/developer/accounts?limit=1", key)
		recv := time.Now()
		if err != nil {
			return answer{}, fmt.Errorf("request %d: %w", i, err)
		}
		e.rec.response(resp, body)
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusTooManyRequests {
			return answer{}, fmt.Errorf("request %d: %d %s", i, resp.StatusCode, body)
		}
		if p := resp.Header.Get("RateLimit-Policy"); p != policy {
			return answer{}, fmt.Errorf("request %d: RateLimit-Policy %q, want %q", i, p, policy)
		}
		a := answer{sent, recv, resp.StatusCode == http.StatusOK}
		mu.Lock()
		answers = append(answers, a)
		mu.Unlock()
		return a, nil
	}

	// The burst: burst+10 requests, 8 at a time, alternating replicas.
	var (
		wg   sync.WaitGroup
		next atomic.Int64
		errs = make(chan error, burst+10)
	)
	for range 8 {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < burst+10; i = int(next.Add(1)) - 1 {
				if _, err := send(i); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	first, last := answers[0].sent, answers[0].recv
	burstOK := 0
	for _, a := range answers {
		first, last = minTime(first, a.sent), maxTime(last, a.recv)
		if a.ok {
			burstOK++
		}
	}
	took := last.Sub(first)
	t.Logf("burst: %d of %d served in %s", burstOK, len(answers), took.Round(time.Millisecond))
	if burstOK < burst || burstOK > burst+int(took/interval) {
		t.Errorf("an idle key got %d answers at once in %s, want exactly %d (plus at most %d refilled)", burstOK, took, burst, int(took/interval))
	}

	// Then one request every poll, one replica after the other, until
	// span after the burst began: one per interval is served.
	tick := time.NewTicker(poll)
	defer tick.Stop()
	var (
		paced []answer
		end   time.Time
	)
	for i := burst + 10; time.Since(first) < span; i++ {
		a, err := send(i)
		if err != nil {
			t.Fatal(err)
		}
		if a.ok {
			paced = append(paced, a)
		}
		end = a.sent
		<-tick.C
	}
	for n, a := range paced {
		// GCRA: the k-th answer of a bucket comes at least (k − burst)
		// intervals after its first, and once the burst is used up, each
		// threshold is one interval after the one before.
		k := burstOK - burst + n + 1
		earliest := first.Add(time.Duration(k) * interval)
		latest := last.Add(time.Duration(k)*interval + tolerance)
		t.Logf("paced answer %d at +%s", n+1, a.recv.Sub(first).Round(time.Millisecond))
		if a.recv.Before(earliest.Add(-10*time.Millisecond)) || a.sent.After(latest) {
			t.Errorf("paced answer %d at +%s…+%s, want within +%s…+%s (one per %s)", n+1,
				a.sent.Sub(first).Round(time.Millisecond), a.recv.Sub(first).Round(time.Millisecond),
				earliest.Sub(first), latest.Sub(first).Round(time.Millisecond), interval)
		}
	}
	if want := int((end.Sub(last) - tolerance) / interval); len(paced) < want {
		t.Errorf("%d answers paced over %s after the burst, want at least %d (one per %s)", len(paced), end.Sub(first).Round(time.Millisecond), want, interval)
	}

	// Never more than the stated worst case in any window: for every pair
	// of answers, those that happened between the first's sending and the
	// second's answer number at most burst + ⌊that span / interval⌋ (the
	// bound for a closed window; 2N − 1 for a rolling minute).
	served := slices.DeleteFunc(slices.Clone(answers), func(a answer) bool { return !a.ok })
	worst, worstSpan, over := 0, time.Duration(0), 0
	for _, from := range served {
		for _, to := range served {
			if to.recv.Before(from.sent) {
				continue
			}
			w := to.recv.Sub(from.sent)
			n := 0
			for _, a := range served {
				if !a.sent.Before(from.sent) && !a.recv.After(to.recv) {
					n++
				}
			}
			bound := burst + int((w+10*time.Millisecond)/interval)
			if n > bound {
				if over++; over <= 3 { // the first few say enough
					t.Errorf("%d answers within %s, more than the bound %d (burst %d, one per %s)", n, w, bound, burst, interval)
				}
			}
			if n > worst {
				worst, worstSpan = n, w
			}
		}
	}
	t.Logf("%d served of %d requests over %s; at most %d within %s (stated worst case in a rolling minute: %d); %d windows over the bound",
		len(served), len(answers), end.Sub(first).Round(time.Millisecond), worst, worstSpan.Round(time.Millisecond), 2*pacingPerMinute-1, over)
	if len(served) > 2*pacingPerMinute-1 {
		t.Errorf("%d served within a minute, more than the stated worst case %d", len(served), 2*pacingPerMinute-1)
	}
}

// startLimitReplicas starts two replicas in a fresh Redis namespace with
// the flags given (limits), stopped when the test ends.
func (e *env) startLimitReplicas(t *testing.T, flags ...string) []*harness.Server {
	t.Helper()
	ns := "e2e" + harness.RandomHex(4)
	var replicas []*harness.Server
	t.Cleanup(func() {
		for _, s := range replicas {
			if err := s.Stop(); err != nil {
				t.Error(err)
			}
		}
	})
	for range 2 {
		port, err := harness.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		env := []string{
			"SVC_DATABASE_URL=" + e.dbURL,
			"SVC_REDIS_URL=redis://" + e.redis + "/0",
			"SVC_REDIS_NAMESPACE=" + ns,
			fmt.Sprintf("SVC_LISTEN_ADDR=127.0.0.1:%d", port),
			"SVC_DATABASE_DEADLINE=10s",
		}
		s, err := harness.StartServer(e.bin.API, port, env, append([]string{"serve"}, flags...)...)
		if err != nil {
			t.Fatal(err)
		}
		e.rec.logs(s.Logs)
		replicas = append(replicas, s)
	}
	return replicas
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
