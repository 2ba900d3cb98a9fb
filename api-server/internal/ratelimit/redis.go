package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
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
// primary or a Redis Cluster (see NewRedis for the URL forms).
//
// All the checks of a request are taken by one script (allowChecks), in
// one round trip, on a single node or under Sentinel: redis_rate runs a
// script per bucket, which made the per-IP, per-key and per-organization
// checks three round trips.
//
// On a Cluster a script may only touch keys of one slot, so the checks are
// taken one group at a time (Check.Group is the hash tag: the server puts a
// key's bucket with its organization's, and the IP's apart), in order, each
// group by the same script, all or nothing within the group. When a later
// group refuses (or fails), the charges of the earlier groups are given back
// (refundChecks). The split's largest error, stated in the README
// ("Production") and tested: no over-admission; an under-admission of at
// most one request per concurrent request refused by a later group, for the
// one round trip between the charge and its refund, and, when the refund
// itself fails (the earlier group's node just went down), one request per
// such failure until the bucket drains (one emission interval).
type Redis struct {
	rdb      redis.UniversalClient
	cluster  bool
	ns       string
	deadline time.Duration
	batch    *coalescer // nil on a Cluster
	args     sync.Map   // Limit → *[3]any: limitArgs
}

// keyPrefix is redis_rate's hard-coded key prefix.
const keyPrefix = "rate:"

// allowChecks is redis_rate v10's allowN script (GCRA, itself from
// rwz/redis-gcra) run over the checks of a batch of requests (coalescer;
// a batch of one on a Cluster), with cost 1 and one clock reading for all
// of them. Each request is taken in order, against the buckets as the
// requests before it left them, charging its buckets only when none
// refuses (all or nothing: a request refused by one bucket consumes from
// none); a refusing gate stops its checks. The buckets hold what
// redis_rate's hold (the theoretical arrival time in seconds since 2017,
// with the same TTL), so that the two read each other's buckets
// (TestRedisMatchesRedisRate).
//
// KEYS holds each bucket once. ARGV: the number of distinct limits, then
// each limit's burst, rate and period in seconds; the number of requests,
// then for each request its number of checks and one code a check, (key
// index × limits + limit index) × 2 + 1 if a gate, indexes from 0
// (batchScript.build). It returns one reply per request: four integers per
// check taken, allowed (0 or 1), remaining, retry_after and reset_after in
// microseconds (retry_after -1 when allowed).
//
// It is redis_rate's script with its cost taken out, measured with
// redis-benchmark (EVALSHA, INFO commandstats). One request of three
// buckets: 18.1 µs of Redis CPU as redis_rate writes it, 13.6 µs with one
// MGET instead of a GET per bucket and integer replies. On the bench's
// /accounts at wrk -c64 (batches of about six requests): 16 µs a request
// with one script a request, 10 µs with one script a batch (one clock
// reading, one MGET and one SET per bucket for the batch, each limit's
// arguments once, one small code a check: sending four values a check cost
// about 1 µs a request more).
var allowChecks = redis.NewScript(`
local jan_1_2017 = 1483228800
local now = redis.call("TIME")
now = (now[1] - jan_1_2017) + (now[2] / 1000000)

local nlim = tonumber(ARGV[1])
local interval, offset = {}, {}
for l = 0, nlim - 1 do
  local b = 2 + l * 3
  interval[l] = tonumber(ARGV[b + 2]) / tonumber(ARGV[b + 1])
  offset[l] = interval[l] * tonumber(ARGV[b])
end
local stored = redis.call("MGET", unpack(KEYS))
local tat = {}
for i = 1, #KEYS do
  if stored[i] then
    tat[i - 1] = math.max(tonumber(stored[i]), now)
  else
    tat[i - 1] = now
  end
end
local dirty = {}
local charge = {}
local replies = {}
local a = 2 + nlim * 3
local nreq = tonumber(ARGV[a])
a = a + 1
for r = 1, nreq do
  local n = tonumber(ARGV[a])
  local first = a + 1
  a = first + n
  local out = {}
  local nc = 0
  local refused = false
  for c = 0, n - 1 do
    local code = tonumber(ARGV[first + c])
    local gate = code % 2
    code = (code - gate) / 2
    local l = code % nlim
    local k = (code - l) / nlim
    local emission_interval = interval[l]
    local new_tat = tat[k] + emission_interval -- cost 1
    local diff = now - (new_tat - offset[l])
    local o = c * 4
    if diff < 0 then
      out[o + 1] = 0
      out[o + 2] = 0
      out[o + 3] = math.floor(-diff * 1000000)
      out[o + 4] = math.floor((tat[k] - now) * 1000000)
      refused = true
      if gate == 1 then
        break
      end
    else
      charge[nc + 1] = k
      charge[nc + 2] = new_tat
      nc = nc + 2
      out[o + 1] = 1
      out[o + 2] = diff / emission_interval
      out[o + 3] = -1
      out[o + 4] = math.floor((new_tat - now) * 1000000)
    end
  end
  -- All or nothing: the buckets are charged only when none refused.
  if not refused then
    for p = 1, nc, 2 do
      tat[charge[p]] = charge[p + 1]
      dirty[charge[p]] = true
    end
  end
  replies[r] = out
end
for i = 0, #KEYS - 1 do
  if dirty[i] then
    local t = tat[i]
    if t > now then
      redis.call("SET", KEYS[i + 1], t, "EX", math.ceil(t - now))
    end
  end
end
return replies
`)

// refundChecks gives back one request to every bucket of KEYS (ARGV: the
// emission interval in seconds of each), undoing a charge of allowChecks: the
// theoretical arrival time moves back one interval, never before now (a
// bucket that has drained since needs nothing back).
var refundChecks = redis.NewScript(`
redis.replicate_commands()
local jan_1_2017 = 1483228800
local now = redis.call("TIME")
now = (now[1] - jan_1_2017) + (now[2] / 1000000)
for i = 1, #KEYS do
  local tat = redis.call("GET", KEYS[i])
  if tat then
    local new_tat = tonumber(tat) - tonumber(ARGV[i])
    if new_tat > now then
      redis.call("SET", KEYS[i], new_tat, "EX", math.ceil(new_tat - now))
    else
      redis.call("DEL", KEYS[i])
    end
  end
end
return 0
`)

// NewRedis connects lazily to the Redis named by rawURL, in one of three
// forms, each read by go-redis's own parser:
//
//   - a single node: redis://[user:password@]host:port/db, or rediss:// for
//     TLS (redis.ParseURL);
//   - Sentinel: redis://[user:password@]sentinel1:port/db?master_name=NAME
//     &addr=sentinel2:port&addr=… (redis.ParseFailoverURL; the user and
//     password are the sentinels', the primary's are ?username= and
//     ?password=);
//   - Cluster: redis://[user:password@]node1:port?addr=node2:port&addr=…,
//     at least one addr= besides the host (redis.ParseClusterURL; the nodes
//     are seeds: the client learns the others from CLUSTER SLOTS).
//
// master_name chooses Sentinel, an addr= parameter without it chooses
// Cluster; anything else is a single node. Every call is bounded by deadline
// (DefaultDeadline if 0); commands are not retried, so that a failing store
// fails fast (a Cluster still follows MOVED and ASK redirections).
func NewRedis(rawURL, namespace string, deadline time.Duration) (*Redis, error) {
	if deadline <= 0 {
		deadline = DefaultDeadline
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, errors.New("redis url: not a URL") // never echo it: it may hold a password
	}
	q := u.Query()
	r := &Redis{ns: namespace, deadline: deadline}
	switch {
	case q.Has("master_name"):
		opt, err := redis.ParseFailoverURL(rawURL)
		if err != nil {
			return nil, fmt.Errorf("redis sentinel url: %w", err)
		}
		opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout, opt.PoolTimeout = deadline, deadline, deadline, deadline
		opt.ContextTimeoutEnabled = true
		opt.MaxRetries = -1
		opt.DisableIdentity = true
		r.rdb = redis.NewFailoverClient(opt)
	case q.Has("addr"):
		opt, err := redis.ParseClusterURL(rawURL)
		if err != nil {
			return nil, fmt.Errorf("redis cluster url: %w", err)
		}
		opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout, opt.PoolTimeout = deadline, deadline, deadline, deadline
		opt.ContextTimeoutEnabled = true
		opt.MaxRetries = -1
		opt.DisableIdentity = true
		r.rdb, r.cluster = redis.NewClusterClient(opt), true
	default:
		opt, err := redis.ParseURL(rawURL)
		if err != nil {
			return nil, fmt.Errorf("redis url: %w", err)
		}
		opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout, opt.PoolTimeout = deadline, deadline, deadline, deadline
		opt.ContextTimeoutEnabled = true
		opt.MaxRetries = -1
		opt.DisableIdentity = true
		r.rdb = redis.NewClient(opt)
	}
	if !r.cluster {
		r.batch = &coalescer{rdb: r.rdb, deadline: deadline}
	}
	return r, nil
}

// Client returns the go-redis client (a *redis.Client or a
// *redis.ClusterClient), for instrumentation such as metrics collectors.
func (r *Redis) Client() redis.UniversalClient { return r.rdb }

// Cluster reports whether the store is a Redis Cluster.
func (r *Redis) Cluster() bool { return r.cluster }

// bucketKey is the Redis key of a check's bucket. The hash tag is the
// check's group (its own key when it has none), so that every bucket of a
// group lives in one Cluster slot.
func (r *Redis) bucketKey(c Check) string {
	return keyPrefix + r.ns + ":{" + c.tag() + "}:" + c.Key
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

// bucketKeyLen is len(r.bucketKey(c)).
func (r *Redis) bucketKeyLen(c Check) int {
	return len(keyPrefix) + len(r.ns) + len(":{") + len(c.tag()) + len("}:") + len(c.Key)
}

// Allow implements Limiter: one script, one round trip for all the checks;
// on a Cluster one script per group of checks (see Redis). On a single
// node the coalescer bounds the call by the deadline (one context per
// batch, not one per request).
func (r *Redis) Allow(ctx context.Context, checks []Check, results []Result) error {
	if len(checks) == 0 {
		return nil
	}
	if !r.cluster {
		_, _, err := r.run(ctx, checks, results)
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, r.deadline)
	defer cancel()
	done := 0 // checks charged by the groups before the current one
	for done < len(checks) {
		tag := checks[done].tag()
		end := done + 1
		for end < len(checks) && checks[end].tag() == tag {
			end++
		}
		n, refused, err := r.run(ctx, checks[done:end], results[done:end])
		if err != nil || refused {
			r.refund(ctx, checks[:done])
			if err == nil && n < end-done { // a gate refused: the rest is untouched
				clear(results[done+n : len(checks)])
			} else if err == nil {
				clear(results[end:len(checks)])
			}
			return err
		}
		done = end
	}
	return nil
}

// tag is the check's hash tag: its group, or its own key.
func (c Check) tag() string {
	if c.Group != "" {
		return c.Group
	}
	return c.Key
}

// refund gives back the charges of checks (an earlier group, when a later
// one refused or failed), on their own deadline: the caller's may be spent.
// A failure is not reported: the request is refused either way, and the
// charge drains with its bucket (the bound stated on Redis).
func (r *Redis) refund(ctx context.Context, checks []Check) {
	for i := 0; i < len(checks); {
		tag := checks[i].tag()
		end := i + 1
		for end < len(checks) && checks[end].tag() == tag {
			end++
		}
		var keysBuf [4]string
		var argsBuf [4]any
		keys, args := keysBuf[:0], argsBuf[:0]
		for _, c := range checks[i:end] {
			keys = append(keys, r.bucketKey(c))
			args = append(args, c.Limit.Period.Seconds()/float64(c.Limit.Rate))
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.deadline)
		_ = refundChecks.Run(rctx, r.rdb, keys, args...).Err()
		cancel()
		i = end
	}
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
	call := newCall()
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

// Ping implements Limiter.
func (r *Redis) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, r.deadline)
	defer cancel()
	var err error
	if c, ok := r.rdb.(*redis.ClusterClient); ok {
		// Every master: a Cluster with one master down refuses the requests
		// whose buckets hash to it.
		err = c.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
			return n.Ping(ctx).Err()
		})
	} else {
		err = r.rdb.Ping(ctx).Err()
	}
	if err != nil {
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

// Probe takes a real limiter request (the script, a write) on every master
// of a Cluster, or on the single node: /readyz fails when any part of the
// store cannot serve the buckets that hash to it. On a Cluster it asks for
// the slot ranges and for the slots of candidate keys, to find one key per
// master.
func (r *Redis) Probe(ctx context.Context) error {
	ready := PerMinute("ready", 1_000_000)
	res := make([]Result, 1)
	if !r.cluster {
		return r.Allow(ctx, []Check{{Limit: ready, Key: "ready"}}, res)
	}
	ctx, cancel := context.WithTimeout(ctx, r.deadline)
	defer cancel()
	slots, err := r.rdb.ClusterSlots(ctx).Result()
	if err != nil {
		return fmt.Errorf("%w: cluster slots: %w", ErrUnavailable, err)
	}
	const candidates = 256
	pipe := r.rdb.Pipeline()
	cmds := make([]*redis.IntCmd, candidates)
	for i := range cmds {
		cmds[i] = pipe.ClusterKeySlot(ctx, "ready-"+strconv.Itoa(i))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("%w: cluster keyslot: %w", ErrUnavailable, err)
	}
	var checks []Check
	for _, s := range slots {
		found := false
		for i, c := range cmds {
			if sl := int(c.Val()); sl >= s.Start && sl <= s.End {
				checks = append(checks, Check{Limit: ready, Key: "ready-" + strconv.Itoa(i)})
				found = true
				break
			}
		}
		if !found { // a tiny slot range no candidate hashes to: at least ping
			// the cluster (ForEachMaster in Ping)
			if err := r.Ping(ctx); err != nil {
				return err
			}
		}
	}
	res = make([]Result, len(checks))
	return r.Allow(ctx, checks, res)
}

// ErrClusterNode reports a single-node URL that names a node of a Redis
// Cluster: each request's buckets span slots, so every request would fail.
var ErrClusterNode = errors.New("the Redis at --redis-url is a node of a Redis Cluster: name it in the Cluster form, redis://node1:port?addr=node2:port&addr=node3:port")

// CheckMode reports ErrClusterNode when the URL's form (single node) does
// not match the server (a Cluster node). A store that does not answer is
// not an error here (requests fail closed until it does).
func (r *Redis) CheckMode(ctx context.Context) error {
	c, ok := r.rdb.(*redis.Client)
	if !ok || r.cluster {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, r.deadline)
	defer cancel()
	info, err := c.Info(ctx, "cluster").Result()
	if err != nil {
		return nil
	}
	if strings.Contains(info, "cluster_enabled:1") {
		return ErrClusterNode
	}
	return nil
}
