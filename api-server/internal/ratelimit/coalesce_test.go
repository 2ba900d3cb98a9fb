package ratelimit_test

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/redis/go-redis/v9"
)

// TestConcurrentCallsStayExact: the scripts of concurrent requests go to
// Redis together (in batches), and each still charges its buckets alone,
// all or nothing: of 200 concurrent requests on a 25-an-hour key bucket
// exactly 25 are allowed, and each allowed one is charged to its
// organization's bucket too.
func TestConcurrentCallsStayExact(t *testing.T) {
	r, err := ratelimit.NewRedis(testenv.RedisURL(t), testenv.Namespace(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	key, org := perHour("key", 25), ratelimit.Limit{Name: "org", Rate: 1000, Period: 24 * time.Hour}
	var allowed, failed atomic.Int32
	var wg sync.WaitGroup
	for range 200 {
		wg.Go(func() {
			res := make([]ratelimit.Result, 2)
			err := r.Allow(t.Context(), []ratelimit.Check{{Limit: key, Key: "key:k", Group: "org:o"}, {Limit: org, Key: "org:o", Group: "org:o"}}, res)
			switch {
			case err != nil:
				failed.Add(1)
			case res[0].Allowed && res[1].Allowed:
				allowed.Add(1)
			}
		})
	}
	wg.Wait()
	if failed.Load() != 0 || allowed.Load() != 25 {
		t.Fatalf("%d allowed, %d failed; want 25, 0", allowed.Load(), failed.Load())
	}
	res := make([]ratelimit.Result, 1)
	if err := r.Allow(t.Context(), []ratelimit.Check{{Limit: org, Key: "org:o"}}, res); err != nil {
		t.Fatal(err)
	}
	if res[0].Remaining != 1000-25-1 {
		t.Fatalf("organization bucket: %d remaining, want %d (charged only with the allowed requests)", res[0].Remaining, 1000-26)
	}
}

// TestCoalescedCallsKeepTheirDeadline: calls that queue behind a batch
// that the store never answers each fail with ErrUnavailable one deadline
// after they were made, not after the batch ahead of them plus their own
// (a batch has one context, its oldest call's deadline). It runs under
// testing/synctest, on in-memory connections to a store that reads and
// never answers, so the times are exact whatever the machine's load.
func TestCoalescedCallsKeepTheirDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var conns []net.Conn
		dial := func(context.Context, string, string) (net.Conn, error) {
			client, store := net.Pipe()
			mu.Lock()
			conns = append(conns, client, store)
			mu.Unlock()
			go func() { _, _ = io.Copy(io.Discard, store) }()
			return client, nil
		}
		defer func() { // after r.Close: the stores' readers end
			mu.Lock()
			defer mu.Unlock()
			for _, c := range conns {
				c.Close()
			}
		}()
		const deadline = 300 * time.Millisecond
		// An address, not a name: a name lookup would leave the bubble.
		r, err := ratelimit.NewRedisDialer("redis://127.0.0.1:1/0", testenv.Namespace(), deadline, dial)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		check := []ratelimit.Check{{Limit: ratelimit.PerMinute("ip", 10), Key: "ip:1"}}
		call := func() time.Duration {
			t0 := time.Now()
			err := r.Allow(context.Background(), check, make([]ratelimit.Result, 1))
			if !errors.Is(err, ratelimit.ErrUnavailable) {
				t.Errorf("err %v, want ErrUnavailable", err)
			}
			return time.Since(t0)
		}
		var wg sync.WaitGroup
		var ahead time.Duration
		wg.Go(func() { ahead = call() }) // the batch ahead
		// The bubble's clock: it moves on only once the batch ahead waits
		// for the store.
		time.Sleep(deadline * 2 / 3)
		took := make([]time.Duration, 8)
		for i := range took {
			wg.Go(func() { took[i] = call() })
		}
		wg.Wait()
		if ahead != deadline {
			t.Errorf("the batch ahead failed after %s, want %s", ahead, deadline)
		}
		for i, d := range took {
			if d != deadline {
				t.Errorf("queued call %d failed after %s, want %s", i, d, deadline)
			}
		}
	})
}

// TestBatchMatchesEach: the coalescer's one script for a batch of requests
// answers each request as a script of its own (a batch of one) would, in
// order, and leaves the buckets as those would: random batches of
// requests over a few buckets of small limits (refusals, gates, a bucket
// shared by several requests, a request naming a bucket twice), each batch
// run both ways on buckets of its own. The two ways read Redis's clock at
// different times: the times they answer and store may differ by as much
// as the round took, however long that was; the limits are per hour, so
// that no bucket refills meanwhile and the decisions are the same.
func TestBatchMatchesEach(t *testing.T) {
	url := testenv.RedisURL(t)
	ctx := t.Context()
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	limits := []ratelimit.Limit{perHour("a", 3), perHour("b", 5), perHour("c", 60)}
	buckets := []string{"ip:1", "ip:2", "key:k", "key:l", "org:o"}
	for round := range 40 {
		start := time.Now()
		// within: a and b, in units of unit, differ by no more than the
		// round has taken so far.
		within := func(a, b float64, unit time.Duration) bool {
			d := float64(time.Since(start)+time.Millisecond) / float64(unit)
			return a-b <= d && b-a <= d
		}
		nsEach, nsBatch := testenv.Namespace(), testenv.Namespace()
		each, err := ratelimit.NewRedis(url, nsEach, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		batch, err := ratelimit.NewRedis(url, nsBatch, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		// Three batches in a row on the same buckets, so that later ones
		// start from stored state.
		for range 3 {
			reqs := make([][]ratelimit.Check, 2+rng.IntN(12))
			for i := range reqs {
				n := 1 + rng.IntN(3)
				for j := range n {
					reqs[i] = append(reqs[i], ratelimit.Check{
						Limit: limits[rng.IntN(len(limits))],
						Key:   buckets[rng.IntN(len(buckets))],
						Gate:  j == 0 && rng.IntN(2) == 0,
					})
				}
			}
			want, err := each.AllowEach(ctx, reqs)
			if err != nil {
				t.Fatal(err)
			}
			got, err := batch.AllowBatch(ctx, reqs)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("round %d: %d replies, want %d", round, len(got), len(want))
			}
			for i := range want {
				w, g := want[i].([]any), got[i].([]any)
				if len(w) != len(g) {
					t.Fatalf("round %d request %d %+v: batch %v, each %v", round, i, reqs[i], g, w)
				}
				for j := range w {
					wv, gv := w[j].(int64), g[j].(int64)
					// allowed and remaining exactly; retry and reset (µs)
					// to the clock readings' difference.
					if (j%4 < 2 && wv != gv) || (j%4 >= 2 && !within(float64(wv), float64(gv), time.Microsecond)) {
						t.Fatalf("round %d request %d %+v: batch %v, each %v", round, i, reqs[i], g, w)
					}
				}
			}
		}
		for _, b := range buckets {
			k := func(ns string) string { return "rate:" + ns + ":{" + b + "}:" + b }
			tw, errW := rdb.Get(ctx, k(nsEach)).Float64()
			tg, errG := rdb.Get(ctx, k(nsBatch)).Float64()
			if (errW == nil) != (errG == nil) || (errW == nil && !within(tw, tg, time.Second)) {
				t.Fatalf("round %d bucket %s: batch %v %v, each %v %v", round, b, tg, errG, tw, errW)
			}
			// The same whole seconds of expiry (EX), set up to the
			// round's time apart.
			lw, _ := rdb.PTTL(ctx, k(nsEach)).Result()
			lg, _ := rdb.PTTL(ctx, k(nsBatch)).Result()
			if !within(float64(lw), float64(lg), time.Nanosecond) {
				t.Fatalf("round %d bucket %s: ttl %s, each %s", round, b, lg, lw)
			}
			rdb.Del(ctx, k(nsEach), k(nsBatch))
		}
		each.Close()
		batch.Close()
	}
}
