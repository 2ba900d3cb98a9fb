// Package ratelimit holds the request limits of the API behind one
// interface: GCRA in Redis (redis_rate v10's algorithm and keys, run by this
// package's own script: Redis; shared by every replica), or
// the same algorithm in process memory (one replica, the embedded default).
// A store that errs or does not answer within its deadline gives
// ErrUnavailable, and the caller refuses the request (fail closed).
//
// Files:
//
//   - ratelimit.go: Limiter, Limit, Check, Result, and the GCRA of one bucket;
//   - memory.go: Memory, the in-process limiter;
//   - redis.go: Redis, the shared limiter: bucket keys, the script's
//     arguments and replies;
//   - allow.lua, refund.lua, scripts.go: the two Lua scripts, embedded;
//   - coalesce.go: the scripts of concurrent requests sent as one (single
//     node and Sentinel);
//   - cluster.go: on a Redis Cluster, the checks taken a group (one slot)
//     at a time and the earlier groups' charges given back;
//   - redisurl.go: NewRedis's URL forms, and the probes (Ping, Probe,
//     CheckMode);
//   - nodebreaker.go: on a Redis Cluster, a breaker per master and the
//     reload of the Cluster's layout after a failure; nodeprobe.go:
//     ProbeNodes, a limiter request on each master (the readiness detail);
//   - urlredact.go: go-redis's URL errors without the URL's values;
//   - logging.go: go-redis's log lines through slog, at most one a second.
package ratelimit
