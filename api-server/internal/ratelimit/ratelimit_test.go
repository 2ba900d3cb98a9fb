package ratelimit_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/testenv"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time          { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// perHour is a limit of n requests an hour. Tests whose counts must be
// exact use it: a bucket refills one request every hour/n, so however
// slowly the machine runs the test, no refill comes between the charges.
func perHour(name string, n int) ratelimit.Limit {
	return ratelimit.Limit{Name: name, Rate: n, Period: time.Hour}
}

// cluster is the Redis Cluster of the package's tests, started by TestMain
// (three masters on free ports, stopped at the end); clusterURL is its URL.
var (
	cluster    *testenv.RedisCluster
	clusterURL string
)

func TestMain(m *testing.M) {
	os.Exit(func() int {
		dir, err := os.MkdirTemp("", "ratelimit-cluster-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cluster, err = testenv.StartRedisCluster(ctx, dir)
		cancel()
		if err != nil {
			fmt.Fprintln(os.Stderr, "ratelimit tests:", err)
			return 1
		}
		defer cluster.Stop()
		clusterURL = cluster.URL
		return m.Run()
	}())
}

// TestURLForms: go-redis's parsers read the three forms, and a single-node
// URL that names a node of a Cluster is refused at start (ErrClusterNode)
// instead of failing every request with CROSSSLOT.
func TestURLForms(t *testing.T) {
	single, err := ratelimit.NewRedis("redis://"+cluster.Addrs[0]+"/0", testenv.Namespace(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer single.Close()
	if err := single.CheckMode(t.Context()); !errors.Is(err, ratelimit.ErrClusterNode) {
		t.Fatalf("single-node URL of a Cluster node: %v, want ErrClusterNode", err)
	}
	for name, l := range redisStores(t) {
		if err := l.(*ratelimit.Redis).CheckMode(t.Context()); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	sentinel, err := ratelimit.NewRedis("redis://127.0.0.1:1/0?master_name=m&addr=127.0.0.1:2", "x", time.Second)
	if err != nil || sentinel.Cluster() {
		t.Fatalf("Sentinel form: %v", err)
	}
	sentinel.Close()
	for _, bad := range []string{"redis://h:1?master_name=m&bogus=1", "redis://h:1?addr=h:2&bogus=1", "redis://h:1/0?bogus=1", "http://h:1"} {
		if _, err := ratelimit.NewRedis(bad, "x", time.Second); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// TestProbe: /readyz's limiter operation succeeds on a healthy store and
// fails by its deadline when one master of the Cluster does not answer (a
// request on every master, not only the one "ready" hashes to). The
// deadline is told by the error (a timeout), not by the clock; the bound
// on the time taken only tells a hang, ten deadlines.
func TestProbe(t *testing.T) {
	for name, l := range redisStores(t) {
		if err := l.(*ratelimit.Redis).Probe(t.Context()); err != nil {
			t.Fatalf("%s: probe of a healthy store: %v", name, err)
		}
	}
	l, err := ratelimit.NewRedis(clusterURL, testenv.Namespace(), 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range 3 {
		if err := l.Probe(t.Context()); err != nil {
			t.Fatal(err)
		}
		p := cluster.Node(i)
		if err := p.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		err := l.Probe(t.Context())
		_ = p.Signal(syscall.SIGCONT)
		var ne net.Error
		if !errors.Is(err, ratelimit.ErrUnavailable) ||
			!errors.Is(err, context.DeadlineExceeded) && !(errors.As(err, &ne) && ne.Timeout()) {
			t.Fatalf("master %d stopped: probe %v, want ErrUnavailable by a timeout", i, err)
		}
		if d := time.Since(start); d > 10*300*time.Millisecond {
			t.Fatalf("master %d stopped: probe took %s, deadline 300ms", i, d)
		}
	}
}

// redisStores returns the shared limiter on a single node and on the
// Cluster, each in a namespace of its own: every test that takes the
// shared limiter runs against both.
func redisStores(t *testing.T) map[string]ratelimit.Limiter {
	t.Helper()
	single, err := ratelimit.NewRedis(testenv.RedisURL(t), testenv.Namespace(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { single.Close() })
	cluster, err := ratelimit.NewRedis(clusterURL, testenv.Namespace(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cluster.Close() })
	if !cluster.Cluster() || single.Cluster() {
		t.Fatalf("URL forms: cluster %v, single %v", cluster.Cluster(), single.Cluster())
	}
	if err := cluster.Ping(t.Context()); err != nil {
		t.Fatalf("the test's Redis Cluster (%s) does not answer: %v", clusterURL, err)
	}
	return map[string]ratelimit.Limiter{"redis": single, "cluster": cluster}
}

// run takes n requests from one bucket and returns how many were allowed.
func run(t *testing.T, l ratelimit.Limiter, key string, lim ratelimit.Limit, n int) (allowed int, last ratelimit.Result) {
	t.Helper()
	res := make([]ratelimit.Result, 1)
	for range n {
		if err := l.Allow(t.Context(), []ratelimit.Check{{Limit: lim, Key: key}}, res); err != nil {
			t.Fatal(err)
		}
		if res[0].Allowed {
			allowed++
		}
		last = res[0]
	}
	return allowed, last
}

// TestSameSemantics: the in-process limiter and redis_rate agree.
func TestSameSemantics(t *testing.T) {
	clk := &clock{t: time.Now()}
	mem := ratelimit.NewMemory(clk.now)
	stores := redisStores(t)
	stores["memory"] = mem
	lim := ratelimit.PerMinute("key", 10)
	for name, l := range stores {
		// Redis's clock moves on while the requests run: the waits it
		// answers are shorter by up to the time they took.
		start := time.Now()
		allowed, last := run(t, l, "key:k1", lim, 12)
		slack := time.Since(start) + 100*time.Millisecond
		if allowed != 10 || last.Allowed || last.Remaining != 0 {
			t.Errorf("%s: allowed %d of 12, last %+v", name, allowed, last)
		}
		if last.RetryAfter < 6*time.Second-slack || last.RetryAfter > 6*time.Second+100*time.Millisecond {
			t.Errorf("%s: retry after %s, want about 6s (one emission interval)", name, last.RetryAfter)
		}
		if last.ResetAfter < 60*time.Second-slack || last.ResetAfter > 60*time.Second+100*time.Millisecond {
			t.Errorf("%s: reset after %s, want about 60s", name, last.ResetAfter)
		}
		if a, _ := run(t, l, "key:k2", lim, 1); a != 1 {
			t.Errorf("%s: buckets are not separate", name)
		}
	}
	clk.advance(6 * time.Second)
	if a, r := run(t, mem, "key:k1", lim, 2); a != 1 || r.Allowed {
		t.Errorf("memory: after one interval %d allowed", a)
	}
}

// TestAllOrNothing: a request refused by the key bucket is not charged to
// the organization's bucket (nor the IP's), in Redis and in memory alike, so
// one runaway key cannot starve the other keys of its organization.
//
// On the Cluster the key and organization buckets share a group (one slot,
// as the server sends them) and the IP's is apart: the IP's charge is given
// back when the key's bucket refuses, so the figures are the same.
func TestAllOrNothing(t *testing.T) {
	stores := redisStores(t)
	stores["memory"] = ratelimit.NewMemory(nil)
	for name, l := range stores {
		ip, key, org := perHour("ip", 100), perHour("key", 2), perHour("org", 10)
		checks := []ratelimit.Check{{Limit: ip, Key: "ip:1", Gate: true},
			{Limit: key, Key: "key:runaway", Group: "org:o"}, {Limit: org, Key: "org:o", Group: "org:o"}}
		res := make([]ratelimit.Result, 3)
		refused := 0
		for range 20 {
			if err := l.Allow(t.Context(), checks, res); err != nil {
				t.Fatal(err)
			}
			if !res[1].Allowed {
				refused++
			}
		}
		if refused != 18 {
			t.Fatalf("%s: key bucket refused %d of 20, want 18", name, refused)
		}
		// The organization's bucket was charged for the 2 allowed requests only.
		one := res[:1]
		if err := l.Allow(t.Context(), []ratelimit.Check{{Limit: org, Key: "org:o", Group: "org:o"}}, one); err != nil {
			t.Fatal(err)
		}
		if !one[0].Allowed || one[0].Remaining != 7 {
			t.Errorf("%s: organization bucket after a runaway key: %+v, want remaining 7 (charged 2+1)", name, one[0])
		}
		if err := l.Allow(t.Context(), []ratelimit.Check{{Limit: ip, Key: "ip:1"}}, one); err != nil {
			t.Fatal(err)
		}
		if one[0].Remaining != 97 {
			t.Errorf("%s: IP bucket after a runaway key: %+v, want remaining 97 (charged 2+1)", name, one[0])
		}
	}
}

// TestClusterSplitBound is the bound the split into slots leaves on a
// Cluster (README "Production"): no over-admission, ever, and an IP bucket
// exact again once the refused requests' charges are given back. 40
// goroutines send requests of a runaway key (refused by its key bucket, a
// later group) and of a polite key from one IP with a quota of 20: no more
// than 20 polite requests are allowed, and afterwards the IP bucket holds
// exactly 20 minus the allowed ones.
func TestClusterSplitBound(t *testing.T) {
	l := redisStores(t)["cluster"]
	ip, key := perHour("ip", 20), perHour("key", 1000)
	runaway := []ratelimit.Check{{Limit: ip, Key: "ip:9", Gate: true}, {Limit: perHour("key", 1), Key: "key:runaway", Group: "org:r"}}
	polite := []ratelimit.Check{{Limit: ip, Key: "ip:9", Gate: true}, {Limit: key, Key: "key:polite", Group: "org:p"}}
	res := make([]ratelimit.Result, 2)
	if err := l.Allow(t.Context(), runaway, res); err != nil || !res[1].Allowed {
		t.Fatalf("first runaway request: %v %+v", err, res)
	}
	var allowedPolite, refusedRunaway atomic.Int64
	var wg sync.WaitGroup
	for g := range 40 {
		wg.Go(func() {
			res := make([]ratelimit.Result, 2)
			for range 5 {
				checks := runaway
				if g%2 == 0 {
					checks = polite
				}
				if err := l.Allow(context.Background(), checks, res); err != nil {
					t.Error(err)
					return
				}
				switch {
				case g%2 == 0 && res[0].Allowed && res[1].Allowed:
					allowedPolite.Add(1)
				case g%2 == 1 && res[0].Allowed && !res[1].Allowed:
					refusedRunaway.Add(1)
				}
			}
		})
	}
	wg.Wait()
	a := int(allowedPolite.Load())
	if a > 19 { // 20 minus the first runaway request
		t.Fatalf("over-admission: %d polite requests allowed, the IP quota left 19", a)
	}
	one := res[:1]
	if err := l.Allow(t.Context(), []ratelimit.Check{{Limit: ip, Key: "ip:9"}}, one); err != nil {
		t.Fatal(err)
	}
	want := max(19-a-1, 0) // 0 and refused when the polite requests took the rest
	if one[0].Remaining != want {
		t.Fatalf("IP bucket after %d polite and %d refused runaway requests: remaining %d, want %d (refunds exact)",
			a, refusedRunaway.Load(), one[0].Remaining, want)
	}
	t.Logf("polite allowed %d of 100 (IP quota 19), runaway refused by its key %d, IP remaining %d", a, refusedRunaway.Load(), one[0].Remaining)
}

// TestLoggerHoldsBack: go-redis's log lines reach the log at most one a
// second, the next one saying how many were held back.
func TestLoggerHoldsBack(t *testing.T) {
	var b strings.Builder
	clk := &clock{t: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)}
	a := ratelimit.NewSlogAdapter(slog.New(slog.NewJSONHandler(&b, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}})), clk.now)
	a.Printf(t.Context(), "dial %s: refused", "redis:6379")
	for range 3 {
		clk.advance(300 * time.Millisecond)
		a.Printf(t.Context(), "dial %s: refused", "redis:6379")
	}
	clk.advance(100 * time.Millisecond) // one second after the first line
	a.Printf(t.Context(), "pool: %d connections", 0)
	want := `{"level":"WARN","msg":"redis client","detail":"dial redis:6379: refused","held_back":0}
{"level":"WARN","msg":"redis client","detail":"pool: 0 connections","held_back":3}
`
	if b.String() != want {
		t.Errorf("log:\n%s\nwant:\n%s", b.String(), want)
	}
}
