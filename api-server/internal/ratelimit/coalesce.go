package ratelimit

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// coalescer sends the limit checks of concurrent requests to one Redis
// (not a Cluster) together: while a call is out, the requests that arrive
// queue, and go together in the next one as soon as it returns, as one
// script (allowChecks) that takes each request's checks in arrival order,
// all or nothing per request, exactly as one script per request would at
// the same clock reading: the limits are those of one call per request.
// Nothing waits for a timer, and a request alone is sent at once (a batch
// of one). Under load a round trip, Redis's and svc-api's system calls for
// it, and Redis's per-script work (the clock, one MGET, one SET per
// bucket) are shared by the requests in flight. It starts no goroutine
// of its own: the request that finds no call out sends one, and one that
// finishes with requests queued hands them to a new goroutine.
//
// Each call is bounded by deadline from the moment it queued, with one
// context per batch, not one per call: a batch's deadline is its oldest
// call's, and the batch before it ended by its own deadline, which came no
// later, so no call waits longer than deadline.
type coalescer struct {
	rdb      redis.UniversalClient
	deadline time.Duration

	mu    sync.Mutex
	queue []*scriptCall
	busy  bool // a batch is out (or about to be)

	script batchScript // reused from batch to batch: one flush runs at a time
}

// scriptCall is one request's checks: its bucket keys, each check's limit
// arguments (Redis.limitArgs) and whether it is a gate, in buffers of its
// own (a call is one allocation, reused through its limiter's callPool), and
// its answer.
type scriptCall struct {
	keys    []string
	limits  []*[3]any
	gates   []bool
	keysBuf [4]string
	limBuf  [4]*[3]any
	gateBuf [4]bool
	argsBuf [16]any // the ARGV of a batch of this call alone (Redis.run on a Cluster)
	queued  time.Time
	val     any
	err     error
	done    chan struct{} // one send when val and err are set
	from    *callPool
}

// batchScript is allowChecks' KEYS and ARGV for a batch of calls (build).
type batchScript struct {
	keys  []string
	lims  []*[3]any
	args  []any
	index map[string]int // each key's index in keys; nil: no key is shared (one call)
}

// build sets b to allowChecks' keys and arguments for calls: each bucket
// key once (with index; a call's own keys in order without); the number of
// distinct limits, and each one's three values; the number of requests,
// and for each its number of checks, then one code a check: (key index ×
// limits + limit index) × 2 + 1 if a gate, indexes from 0. The limits are
// the server's (three), looked up in a slice.
func (b *batchScript) build(calls []*scriptCall) {
	b.keys, b.lims = b.keys[:0], b.lims[:0]
	if b.index != nil {
		clear(b.index)
	}
	for _, call := range calls {
		for _, l := range call.limits {
			if !slices.Contains(b.lims, l) {
				b.lims = append(b.lims, l)
			}
		}
	}
	b.args = append(b.args[:0], len(b.lims))
	for _, l := range b.lims {
		b.args = append(b.args, l[0], l[1], l[2])
	}
	nlim := len(b.lims)
	b.args = append(b.args, len(calls))
	for _, call := range calls {
		b.args = append(b.args, len(call.keys))
		for i, k := range call.keys {
			j := len(b.keys)
			if b.index == nil {
				b.keys = append(b.keys, k)
			} else if have, ok := b.index[k]; ok {
				j = have
			} else {
				b.keys = append(b.keys, k)
				b.index[k] = j
			}
			code := (j*nlim + slices.Index(b.lims, call.limits[i])) * 2
			if call.gates[i] {
				code++
			}
			b.args = append(b.args, code)
		}
	}
}

// callPool reuses a limiter's calls. Each Redis has its own: a call's
// channel then belongs to the limiter that made it (testing/synctest
// waits only on channels made in its bubble).
type callPool struct{ pool sync.Pool }

func newCallPool() *callPool {
	p := &callPool{}
	p.pool.New = func() any { return &scriptCall{done: make(chan struct{}, 1), from: p} }
	return p
}

// get returns an empty call.
func (p *callPool) get() *scriptCall {
	c := p.pool.Get().(*scriptCall)
	c.keys, c.limits, c.gates = c.keysBuf[:0], c.limBuf[:0], c.gateBuf[:0]
	return c
}

// release puts an answered call back in its pool.
func (c *scriptCall) release() {
	clear(c.keysBuf[:])
	clear(c.limBuf[:])
	clear(c.argsBuf[:])
	c.val, c.err = nil, nil
	c.from.pool.Put(c)
}

// run takes call's checks with the other requests' queued with it (one
// allowChecks script); ctx (the request's) ends the wait early. The call
// goes back to the pool once answered; a call left behind by its request
// is the garbage collector's.
func (c *coalescer) run(ctx context.Context, call *scriptCall) (any, error) {
	call.queued = time.Now()
	c.mu.Lock()
	c.queue = append(c.queue, call)
	lead := !c.busy
	c.busy = true
	c.mu.Unlock()
	if lead {
		c.flush()
	}
	select {
	case <-call.done:
		val, err := call.val, call.err
		call.release()
		return val, err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// flush sends the queued calls in one script, on the deadline of the
// oldest (the requests' contexts bound their waits, not the others').
func (c *coalescer) flush() {
	c.mu.Lock()
	batch := c.queue
	c.queue = nil
	c.mu.Unlock()
	ctx, cancel := context.WithDeadline(context.Background(), batch[0].queued.Add(c.deadline))
	defer cancel()
	b := &c.script
	if b.index == nil {
		b.index = make(map[string]int)
	}
	b.build(batch)
	vals, err := runChecks(ctx, c.rdb, b, len(batch))
	clear(b.args) // the batch holds no call's strings past its answer
	clear(b.keys)
	for i, call := range batch {
		if err != nil {
			call.err = err
		} else {
			call.val = vals[i]
		}
		call.done <- struct{}{}
	}
	c.mu.Lock()
	more := len(c.queue) > 0
	c.busy = more
	c.mu.Unlock()
	if more {
		go c.flush()
	}
}

// runChecks runs allowChecks for b, a batch of n calls, and returns the
// reply of each.
func runChecks(ctx context.Context, rdb redis.UniversalClient, b *batchScript, n int) ([]any, error) {
	vals, err := allowChecks.Run(ctx, rdb, b.keys, b.args...).Slice()
	if err == nil && len(vals) != n {
		err = fmt.Errorf("unexpected reply of %d values for %d requests", len(vals), n)
	}
	return vals, err
}
