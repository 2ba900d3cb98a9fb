package ratelimit

import (
	"context"
	"log/slog"
	"net"
	"time"
)

// AllowEach takes each request's checks with a script of its own (a batch
// of one), one after the other, and returns the raw replies; AllowBatch
// takes them all with one script, as the coalescer does. For tests that
// compare the two.
func (r *Redis) AllowEach(ctx context.Context, reqs [][]Check) ([]any, error) {
	out := make([]any, len(reqs))
	for i, checks := range reqs {
		vals, err := r.allow(ctx, [][]Check{checks})
		if err != nil {
			return nil, err
		}
		out[i] = vals[0]
	}
	return out, nil
}

func (r *Redis) AllowBatch(ctx context.Context, reqs [][]Check) ([]any, error) {
	return r.allow(ctx, reqs)
}

func (r *Redis) allow(ctx context.Context, reqs [][]Check) ([]any, error) {
	calls := make([]*scriptCall, len(reqs))
	for i, checks := range reqs {
		calls[i] = r.newCall(checks)
	}
	b := batchScript{index: map[string]int{}}
	b.build(calls)
	return runChecks(ctx, r.rdb, &b, len(calls))
}

// NewRedisDialer is NewRedis with go-redis's Dialer set: tests that run
// under testing/synctest give it in-memory connections (net.Pipe).
func NewRedisDialer(rawURL, namespace string, deadline time.Duration, dial func(ctx context.Context, network, addr string) (net.Conn, error)) (*Redis, error) {
	return newRedis(rawURL, namespace, deadline, dial)
}

// NewSlogAdapter is SetLogger's adapter with a clock of the test's.
func NewSlogAdapter(log *slog.Logger, now func() time.Time) interface {
	Printf(ctx context.Context, format string, v ...any)
} {
	return newSlogAdapter(log, now)
}
