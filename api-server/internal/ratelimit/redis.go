package ratelimit

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultDeadline bounds every call to the store.
const DefaultDeadline = 250 * time.Millisecond

// Redis is the shared limiter: redis_rate's GCRA, one bucket key per check,
// "rate:<namespace>:{<group>}:<key>" (redis_rate v10's values; the braces
// are a Redis Cluster hash tag), on a single node, a Sentinel-managed
// primary or a Redis Cluster (see NewRedis for the URL forms, redisurl.go).
//
// All the checks of a request are taken by one script (allowChecks,
// allow.lua), in one round trip, on a single node or under Sentinel:
// redis_rate runs a script per bucket, which made the per-IP, per-key and
// per-organization checks three round trips. The scripts of concurrent
// requests go together (coalescer, coalesce.go).
//
// On a Cluster a script may only touch keys of one slot, so the checks are
// taken one group at a time, each group by the same script, and the
// charges of earlier groups are given back when a later one refuses
// (cluster.go, which states the bound this leaves).
type Redis struct {
	rdb      redis.UniversalClient
	cluster  bool
	ns       string
	deadline time.Duration
	batch    *coalescer // nil on a Cluster
	args     sync.Map   // Limit → *[3]any: limitArgs
	calls    *callPool
	nodes    nodeBreakers // on a Cluster, a breaker per master (nodebreaker.go)
}

// keyPrefix is redis_rate's hard-coded key prefix.
const keyPrefix = "rate:"

// Client returns the go-redis client (a *redis.Client or a
// *redis.ClusterClient), for instrumentation such as metrics collectors.
func (r *Redis) Client() redis.UniversalClient { return r.rdb }

// Cluster reports whether the store is a Redis Cluster.
func (r *Redis) Cluster() bool { return r.cluster }

// Close implements Limiter.
func (r *Redis) Close() error { return r.rdb.Close() }

// bucketKey is the Redis key of a check's bucket. The hash tag is the
// check's group (its own key when it has none), so that every bucket of a
// group lives in one Cluster slot.
func (r *Redis) bucketKey(c Check) string {
	return keyPrefix + r.ns + ":{" + c.tag() + "}:" + c.Key
}

// bucketKeyLen is len(r.bucketKey(c)).
func (r *Redis) bucketKeyLen(c Check) int {
	return len(keyPrefix) + len(r.ns) + len(":{") + len(c.tag()) + len("}:") + len(c.Key)
}

// limitArgs is what the script is sent for l, as redis_rate sends it
// (burst, rate, period in seconds), formatted once per limit: the server
// has three.
func (r *Redis) limitArgs(l Limit) *[3]any {
	if a, ok := r.args.Load(l); ok {
		return a.(*[3]any)
	}
	rate := strconv.Itoa(l.Rate)
	a := &[3]any{rate, rate, strconv.FormatFloat(l.Period.Seconds(), 'f', -1, 64)}
	r.args.Store(l, a)
	return a
}

// Allow implements Limiter: one script, one round trip for all the checks;
// on a Cluster one script per group of checks (allowGroups). On a single
// node the coalescer bounds the call by the deadline (one context per
// batch, not one per request).
func (r *Redis) Allow(ctx context.Context, checks []Check, results []Result) error {
	if len(checks) == 0 {
		return nil
	}
	if r.cluster {
		return r.allowGroups(ctx, checks, results)
	}
	_, _, err := r.run(ctx, checks, results)
	return err
}

// run takes checks with one script, filling results, and returns how many
// results it filled and whether a bucket refused.
func (r *Redis) run(ctx context.Context, checks []Check, results []Result) (int, bool, error) {
	call := r.newCall(checks)
	var raw any
	var err error
	if r.batch != nil {
		raw, err = r.batch.run(ctx, call)
	} else {
		// A batch of this call alone: its keys as they are (the checks of
		// one request name distinct buckets), its arguments in its buffer.
		b := batchScript{args: call.argsBuf[:0], lims: make([]*[3]any, 0, len(checks))}
		b.build([]*scriptCall{call})
		var vals []any
		if vals, err = runChecks(ctx, r.rdb, &b, 1); err == nil {
			raw = vals[0]
		}
		call.release()
	}
	return r.reply(checks, results, raw, err)
}

// newCall returns the call of allowChecks for checks (from the pool).
func (r *Redis) newCall(checks []Check) *scriptCall {
	call := r.calls.get()
	// One string for the bucket keys of the call, sliced: one allocation
	// instead of one a key.
	size := 0
	for _, c := range checks {
		size += r.bucketKeyLen(c)
	}
	var b strings.Builder
	b.Grow(size)
	for _, c := range checks {
		b.WriteString(keyPrefix)
		b.WriteString(r.ns)
		b.WriteString(":{")
		b.WriteString(c.tag())
		b.WriteString("}:")
		b.WriteString(c.Key)
	}
	all := b.String()
	for _, c := range checks {
		k := r.bucketKeyLen(c)
		call.keys = append(call.keys, all[:k])
		all = all[k:]
		call.limits = append(call.limits, r.limitArgs(c.Limit))
		call.gates = append(call.gates, c.Gate)
	}
	return call
}

// reply reads allowChecks' reply to one request's checks (raw, or err) into results and
// returns how many results it filled and whether a bucket refused.
func (r *Redis) reply(checks []Check, results []Result, raw any, err error) (int, bool, error) {
	var v []any
	if err == nil {
		var ok bool
		if v, ok = raw.([]any); !ok {
			err = fmt.Errorf("unexpected script reply %T", raw)
		}
	}
	if err != nil {
		return 0, false, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if len(v)%4 != 0 || len(v)/4 > len(checks) || len(v) == 0 {
		return 0, false, fmt.Errorf("%w: unexpected script reply of %d values", ErrUnavailable, len(v))
	}
	n := len(v) / 4
	refused := false
	for i := range n {
		allowed, ok1 := v[i*4].(int64)
		remaining, ok2 := v[i*4+1].(int64)
		retry, ok3 := v[i*4+2].(int64)
		reset, ok4 := v[i*4+3].(int64)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return 0, false, fmt.Errorf("%w: unexpected script reply %v", ErrUnavailable, v)
		}
		results[i] = Result{Limit: checks[i].Limit, Allowed: allowed > 0, Remaining: int(remaining),
			ResetAfter: time.Duration(reset) * time.Microsecond, RetryAfter: max(time.Duration(retry)*time.Microsecond, 0)}
		refused = refused || allowed == 0
	}
	clear(results[n:len(checks)])
	return n, refused, nil
}

// PoolStats returns the connection pool's statistics, for metrics.
func (r *Redis) PoolStats() *redis.PoolStats { return r.rdb.PoolStats() }
