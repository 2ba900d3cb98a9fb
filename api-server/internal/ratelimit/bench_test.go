package ratelimit_test

import (
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/testenv"
)

// benchChecks are a request's checks as the server sends them: the IP's
// bucket as a gate, then the key's and its organization's in one group.
// The limits are high enough that nothing is refused.
func benchChecks(ip, key, org string) []ratelimit.Check {
	return []ratelimit.Check{
		{Limit: ratelimit.PerMinute("ip", 1_000_000_000), Key: "ip:" + ip, Gate: true},
		{Limit: ratelimit.PerMinute("key", 1_000_000_000), Key: "key:" + key, Group: "org:" + org},
		{Limit: ratelimit.PerMinute("org", 1_000_000_000), Key: "org:" + org, Group: "org:" + org},
	}
}

// BenchmarkAllow is the limiter's per-request cost (time and allocations
// per Allow of one request's three checks): on one Redis node one request
// at a time (a batch of one) and 64 at once (coalesced batches), on the
// Cluster (three groups' worth of scripts: the IP's, then the key's and
// organization's), and in memory.
func BenchmarkAllow(b *testing.B) {
	single, err := ratelimit.NewRedis(testenv.RedisURL(b), testenv.Namespace(), time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer single.Close()
	clustered, err := ratelimit.NewRedis(clusterURL, testenv.Namespace(), time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer clustered.Close()
	sequential := func(l ratelimit.Limiter) func(b *testing.B) {
		return func(b *testing.B) {
			checks := benchChecks("1", "k", "o")
			res := make([]ratelimit.Result, len(checks))
			b.ReportAllocs()
			for b.Loop() {
				if err := l.Allow(b.Context(), checks, res); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.Run("redis", sequential(single))
	b.Run("cluster", sequential(clustered))
	b.Run("memory", sequential(ratelimit.NewMemory(nil)))
	b.Run("redis-parallel-64", func(b *testing.B) {
		var n atomic.Int64
		b.ReportAllocs()
		b.SetParallelism(32) // 64 goroutines on 2 CPUs
		b.RunParallel(func(pb *testing.PB) {
			i := strconv.FormatInt(n.Add(1), 10)
			checks := benchChecks(i, "k"+i, "o"+i)
			res := make([]ratelimit.Result, len(checks))
			for pb.Next() {
				if err := single.Allow(b.Context(), checks, res); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
