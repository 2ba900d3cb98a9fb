package ratelimit

import (
	_ "embed"

	"github.com/redis/go-redis/v9"
)

// The limiter's two Lua scripts, embedded from the .lua files beside this
// one (each file's header states its KEYS, ARGV and reply). go-redis sends
// a script by EVALSHA, and its text by EVAL only when Redis does not know
// it yet.
var (
	//go:embed allow.lua
	allowLua string
	//go:embed refund.lua
	refundLua string
)

// allowChecks takes the checks of a batch of requests (the coalescer's; a
// batch of one on a Cluster, one script per group): redis_rate v10's
// allowN script with its cost taken out, run over every check of the
// batch, so that its buckets read and write redis_rate's
// (TestRedisMatchesRedisRate), all or nothing per request.
//
// Measured with redis-benchmark (EVALSHA, INFO commandstats), one request
// of three buckets: 18.1 µs of Redis CPU as redis_rate writes it, 13.6 µs
// with one MGET instead of a GET per bucket and integer replies. On the
// bench's /accounts at wrk -c64 (batches of about six requests): 16 µs a
// request with one script a request, 10 µs with one script a batch (one
// clock reading, one MGET and one SET per bucket for the batch, each
// limit's arguments once, one small code a check: sending four values a
// check cost about 1 µs a request more).
var allowChecks = redis.NewScript(allowLua)

// refundChecks gives back one request to each of its buckets (a Cluster's
// earlier groups, when a later group refuses or fails: refundGroup).
var refundChecks = redis.NewScript(refundLua)
