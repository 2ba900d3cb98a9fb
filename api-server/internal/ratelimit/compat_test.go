package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// TestRedisMatchesRedisRate: the combined script gives redis_rate v10's
// answers, request after request, on buckets of its own. The two read
// Redis's clock one after the other: the times they answer and store may
// differ by as much as the test has taken so far; the limit is per hour,
// so that no bucket refills meanwhile however slow the machine.
func TestRedisMatchesRedisRate(t *testing.T) {
	url := testenv.RedisURL(t)
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	ref := redis_rate.NewLimiter(rdb)
	ns := testenv.Namespace()
	ours, err := ratelimit.NewRedis(url, ns, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ours.Close()
	lim := perHour("key", 10)
	res := make([]ratelimit.Result, 1)
	defer rdb.Del(context.Background(), "rate:"+ns+":{key:k}:key:k", "rate:"+ns+"-ref:{key:k}:key:k")
	start := time.Now()
	for i := range 13 {
		want, err := ref.Allow(t.Context(), ns+"-ref:{key:k}:key:k", redis_rate.Limit{Rate: 10, Burst: 10, Period: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if err := ours.Allow(t.Context(), []ratelimit.Check{{Limit: lim, Key: "key:k"}}, res); err != nil {
			t.Fatal(err)
		}
		got := res[0]
		if got.Allowed != (want.Allowed > 0) || got.Remaining != want.Remaining {
			t.Fatalf("request %d: allowed %v remaining %d, redis_rate %d %d", i, got.Allowed, got.Remaining, want.Allowed, want.Remaining)
		}
		took := time.Since(start) + time.Millisecond
		near := func(a, b time.Duration) bool { d := a - b; return d <= took && d >= -took }
		if !near(got.ResetAfter, want.ResetAfter) || !near(got.RetryAfter, max(want.RetryAfter, 0)) {
			t.Fatalf("request %d: reset %s retry %s, redis_rate %s %s", i, got.ResetAfter, got.RetryAfter, want.ResetAfter, want.RetryAfter)
		}
		// The stored theoretical arrival times agree too: the same whole
		// seconds of expiry (EX), set at most that long apart.
		a, _ := rdb.PTTL(t.Context(), "rate:"+ns+":{key:k}:key:k").Result()
		b, _ := rdb.PTTL(t.Context(), "rate:"+ns+"-ref:{key:k}:key:k").Result()
		if took = time.Since(start) + time.Millisecond; !near(a, b) {
			t.Fatalf("request %d: ttl %s, redis_rate %s", i, a, b)
		}
	}
}

// TestGate: a refusing gate bucket stops the checks after it, in Redis and
// in memory alike; the other buckets are untouched.
func TestGate(t *testing.T) {
	stores := redisStores(t)
	stores["memory"] = ratelimit.NewMemory(nil)
	for name, l := range stores {
		ip, key := perHour("ip", 2), perHour("key", 5)
		checks := []ratelimit.Check{{Limit: ip, Key: "ip:1", Gate: true}, {Limit: key, Key: "key:k"}}
		res := make([]ratelimit.Result, 2)
		for i := range 3 {
			if err := l.Allow(t.Context(), checks, res); err != nil {
				t.Fatal(err)
			}
			if i < 2 && (!res[0].Allowed || !res[1].Allowed || res[1].Remaining != 4-i) {
				t.Fatalf("%s: request %d: %+v", name, i, res)
			}
		}
		if res[0].Allowed || res[1] != (ratelimit.Result{}) {
			t.Fatalf("%s: gate refused, want the key bucket untouched: %+v", name, res)
		}
		one := res[:1]
		if err := l.Allow(t.Context(), []ratelimit.Check{{Limit: key, Key: "key:k"}}, one); err != nil {
			t.Fatal(err)
		}
		if !one[0].Allowed || one[0].Remaining != 2 {
			t.Fatalf("%s: key bucket after the refusal: %+v, want remaining 2", name, one[0])
		}
	}
}
