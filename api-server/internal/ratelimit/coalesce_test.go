package ratelimit_test

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/testenv"
)

// TestConcurrentCallsStayExact: the scripts of concurrent requests go to
// Redis together (in pipelines), and each still charges its buckets alone,
// all or nothing: of 200 concurrent requests on a 25-a-minute key bucket
// exactly 25 are allowed, and each allowed one is charged to its
// organization's bucket too.
func TestConcurrentCallsStayExact(t *testing.T) {
	r, err := ratelimit.NewRedis(testenv.RedisURL(t), testenv.Namespace(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	key, org := ratelimit.PerMinute("key", 25), ratelimit.PerMinute("org", 1000)
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

// TestCoalescedCallsKeepTheirDeadline: calls that queue behind a pipeline
// that the store never answers each fail with ErrUnavailable about one
// deadline after they were made, not after the pipeline ahead of them plus
// their own (a pipeline has one context, its oldest call's deadline).
func TestCoalescedCallsKeepTheirDeadline(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // a store that reads and never answers
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(io.Discard, c) }()
		}
	}()
	const deadline = 300 * time.Millisecond
	r, err := ratelimit.NewRedis("redis://"+ln.Addr().String(), testenv.Namespace(), deadline)
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
	wg.Go(func() { call() }) // the pipeline ahead
	time.Sleep(deadline * 2 / 3)
	took := make([]time.Duration, 8)
	for i := range took {
		wg.Go(func() { took[i] = call() })
	}
	wg.Wait()
	for i, d := range took {
		if d < deadline-20*time.Millisecond || d > deadline+deadline/2 {
			t.Errorf("queued call %d failed after %s, want about %s", i, d, deadline)
		}
	}
}
