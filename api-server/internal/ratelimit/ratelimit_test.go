package ratelimit_test

import (
	"sync"
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
	red, err := ratelimit.NewRedis(testenv.RedisURL(t), testenv.Namespace(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer red.Close()
	lim := ratelimit.PerMinute("key", 10)
	for name, l := range map[string]ratelimit.Limiter{"memory": mem, "redis": red} {
		allowed, last := run(t, l, "key:k1", lim, 12)
		if allowed != 10 || last.Allowed || last.Remaining != 0 {
			t.Errorf("%s: allowed %d of 12, last %+v", name, allowed, last)
		}
		if last.RetryAfter <= 0 || last.RetryAfter > 6*time.Second+100*time.Millisecond {
			t.Errorf("%s: retry after %s, want about 6s (one emission interval)", name, last.RetryAfter)
		}
		if last.ResetAfter < 59*time.Second || last.ResetAfter > 61*time.Second {
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
func TestAllOrNothing(t *testing.T) {
	red, err := ratelimit.NewRedis(testenv.RedisURL(t), testenv.Namespace(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer red.Close()
	for name, l := range map[string]ratelimit.Limiter{"memory": ratelimit.NewMemory(nil), "redis": red} {
		ip, key, org := ratelimit.PerMinute("ip", 100), ratelimit.PerMinute("key", 2), ratelimit.PerMinute("org", 10)
		checks := []ratelimit.Check{{Limit: ip, Key: "ip:1", Gate: true}, {Limit: key, Key: "key:runaway"}, {Limit: org, Key: "org:o"}}
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
		if err := l.Allow(t.Context(), []ratelimit.Check{{Limit: org, Key: "org:o"}}, one); err != nil {
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
