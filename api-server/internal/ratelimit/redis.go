package ratelimit

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultDeadline bounds every call to the store.
const DefaultDeadline = 250 * time.Millisecond

// Redis is the shared limiter: redis_rate's GCRA, one bucket key per check,
// "rate:<namespace>:<key>" (the keys and values redis_rate v10 uses, so the
// two can share buckets).
//
// All the checks of a request are taken by one script (allowChecks), in
// one round trip: redis_rate runs a script per bucket, which made the
// per-IP, per-key and per-organization checks three round trips.
type Redis struct {
	rdb      *redis.Client
	ns       string
	deadline time.Duration
}

// keyPrefix is redis_rate's hard-coded key prefix.
const keyPrefix = "rate:"

// allowChecks is redis_rate v10's allowN script (GCRA, itself from
// rwz/redis-gcra) run over every bucket of KEYS in order, with cost 1 and
// one clock reading for all of them, charging the buckets only when none
// refuses (all or nothing: a request refused by one bucket consumes from
// none). ARGV holds four values per bucket:
// burst, rate, period in seconds, and "1" if the bucket is a gate (stop after
// it when it refuses). It returns four values per bucket taken, as allowN
// does: allowed (0 or 1), remaining, retry_after and reset_after (strings,
// seconds; retry_after "-1" when allowed).
var allowChecks = redis.NewScript(`
-- this script has side-effects, so it requires replicate commands mode
redis.replicate_commands()

-- redis returns time as an array containing two integers: seconds of the epoch
-- time (10 digits) and microseconds (6 digits), made relative to Jan 1, 2017
-- 00:00:00 GMT as redis_rate does, to avoid floating point problems.
local jan_1_2017 = 1483228800
local now = redis.call("TIME")
now = (now[1] - jan_1_2017) + (now[2] / 1000000)

local out = {}
local sets = {}
local refused = false
for i = 1, #KEYS do
  local rate_limit_key = KEYS[i]
  local burst = ARGV[(i - 1) * 4 + 1]
  local rate = ARGV[(i - 1) * 4 + 2]
  local period = ARGV[(i - 1) * 4 + 3]
  local gate = ARGV[(i - 1) * 4 + 4]
  local cost = 1
  local emission_interval = period / rate
  local increment = emission_interval * cost
  local burst_offset = emission_interval * burst
  local tat = redis.call("GET", rate_limit_key)
  if not tat then
    tat = now
  else
    tat = tonumber(tat)
  end
  tat = math.max(tat, now)
  local new_tat = tat + increment
  local allow_at = new_tat - burst_offset
  local diff = now - allow_at
  local remaining = diff / emission_interval
  if remaining < 0 then
    local reset_after = tat - now
    local retry_after = diff * -1
    out[#out + 1] = 0
    out[#out + 1] = 0
    out[#out + 1] = tostring(retry_after)
    out[#out + 1] = tostring(reset_after)
    refused = true
    if gate == "1" then
      return out
    end
  else
    local reset_after = new_tat - now
    if reset_after > 0 then
      sets[#sets + 1] = {rate_limit_key, new_tat, math.ceil(reset_after)}
    end
    local retry_after = -1
    out[#out + 1] = cost
    out[#out + 1] = remaining
    out[#out + 1] = tostring(retry_after)
    out[#out + 1] = tostring(reset_after)
  end
end
-- All or nothing: the buckets are charged only when none refused.
if not refused then
  for _, s in ipairs(sets) do
    redis.call("SET", s[1], s[2], "EX", s[3])
  end
end
return out
`)

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
	return &Redis{rdb: rdb, ns: namespace, deadline: deadline}, nil
}

// Allow implements Limiter: one script, one round trip for all the checks.
func (r *Redis) Allow(ctx context.Context, checks []Check, results []Result) error {
	if len(checks) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, r.deadline)
	defer cancel()
	var keysBuf [4]string
	var argsBuf [16]any
	keys, args := keysBuf[:0], argsBuf[:0]
	for _, c := range checks {
		keys = append(keys, keyPrefix+r.ns+":"+c.Key)
		gate := "0"
		if c.Gate {
			gate = "1"
		}
		// The values redis_rate sends: burst, rate, period in seconds.
		args = append(args, c.Limit.Rate, c.Limit.Rate, c.Limit.Period.Seconds(), gate)
	}
	v, err := allowChecks.Run(ctx, r.rdb, keys, args...).Slice()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if len(v)%4 != 0 || len(v)/4 > len(checks) || len(v) == 0 {
		return fmt.Errorf("%w: unexpected script reply of %d values", ErrUnavailable, len(v))
	}
	n := len(v) / 4
	for i := range n {
		allowed, ok1 := v[i*4].(int64)
		remaining, ok2 := v[i*4+1].(int64)
		retryS, ok3 := v[i*4+2].(string)
		resetS, ok4 := v[i*4+3].(string)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return fmt.Errorf("%w: unexpected script reply %v", ErrUnavailable, v)
		}
		retry, err1 := strconv.ParseFloat(retryS, 64)
		reset, err2 := strconv.ParseFloat(resetS, 64)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("%w: unexpected script reply %v", ErrUnavailable, v)
		}
		results[i] = Result{Limit: checks[i].Limit, Allowed: allowed > 0, Remaining: int(remaining),
			ResetAfter: dur(reset), RetryAfter: max(dur(retry), 0)}
	}
	clear(results[n:len(checks)])
	return nil
}

// dur is redis_rate's conversion of the script's seconds.
func dur(f float64) time.Duration {
	if f == -1 {
		return -1
	}
	return time.Duration(f * float64(time.Second))
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

// SetLogger sends go-redis's own log lines (pool and dial failures) to log
// at warn level, as JSON like every other line, instead of go-redis's
// plain-text default, and at most one a second (with the number of lines
// held back): a Redis outage must not flood the logs. go-redis has one
// logger per process.
func SetLogger(log *slog.Logger) {
	redis.SetLogger(&slogAdapter{log: log})
}

type slogAdapter struct {
	log  *slog.Logger
	mu   sync.Mutex
	last time.Time
	held int
}

func (a *slogAdapter) Printf(ctx context.Context, format string, v ...any) {
	a.mu.Lock()
	now := time.Now()
	if now.Sub(a.last) < time.Second {
		a.held++
		a.mu.Unlock()
		return
	}
	held := a.held
	a.last, a.held = now, 0
	a.mu.Unlock()
	a.log.WarnContext(ctx, "redis client", "detail", fmt.Sprintf(format, v...), "held_back", held)
}
