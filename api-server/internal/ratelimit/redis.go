package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// DefaultDeadline bounds every call to the store.
const DefaultDeadline = 250 * time.Millisecond

// Redis is the shared limiter: redis_rate's GCRA, one bucket key per check,
// "rate:<namespace>:<key>" (redis_rate adds "rate:").
//
// Cost: redis_rate runs one script per bucket, so the per-key and
// per-organization checks of a request are two round trips; a combined
// script would make them one.
type Redis struct {
	rdb      *redis.Client
	lim      *redis_rate.Limiter
	ns       string
	deadline time.Duration
}

// NewRedis connects lazily to the Redis at rawURL ("redis://…" or
// "rediss://…"). Every call is bounded by deadline (DefaultDeadline if 0);
// connections are not retried, so that a failing store fails fast.
func NewRedis(rawURL, namespace string, deadline time.Duration) (*Redis, error) {
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	if deadline <= 0 {
		deadline = DefaultDeadline
	}
	opt.DialTimeout = deadline
	opt.ReadTimeout = deadline
	opt.WriteTimeout = deadline
	opt.PoolTimeout = deadline
	opt.ContextTimeoutEnabled = true
	opt.MaxRetries = -1
	opt.DisableIdentity = true
	rdb := redis.NewClient(opt)
	return &Redis{rdb: rdb, lim: redis_rate.NewLimiter(rdb), ns: namespace, deadline: deadline}, nil
}

// Allow implements Limiter.
func (r *Redis) Allow(ctx context.Context, checks []Check, results []Result) error {
	ctx, cancel := context.WithTimeout(ctx, r.deadline)
	defer cancel()
	for i, c := range checks {
		res, err := r.lim.Allow(ctx, r.ns+":"+c.Key, redis_rate.Limit{Rate: c.Limit.Rate, Burst: c.Limit.Rate, Period: c.Limit.Period})
		if err != nil {
			return fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		results[i] = Result{Limit: c.Limit, Allowed: res.Allowed > 0, Remaining: res.Remaining,
			ResetAfter: res.ResetAfter, RetryAfter: max(res.RetryAfter, 0)}
	}
	return nil
}

// Ping implements Limiter.
func (r *Redis) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, r.deadline)
	defer cancel()
	if err := r.rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return nil
}

// Close implements Limiter.
func (r *Redis) Close() error { return r.rdb.Close() }
