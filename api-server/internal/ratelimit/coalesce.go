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
// script (allowBatch) that takes each request's checks in arrival order,
// all or nothing per request, exactly as one allowChecks per request would
// at the same clock reading: the limits are those of one call per request.
// Nothing waits for a timer, and a request alone is sent at once (as
// allowChecks). Under load a round trip, Redis's and svc-api's system
// calls for it, and Redis's per-script work (the clock, one MGET, one SET
// per bucket) are shared by the requests in flight. It starts no goroutine
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

	// allowBatch's keys, limits and arguments, reused from batch to batch
	// (one flush runs at a time), and each key's index in keys.
	keys  []string
	lims  []*[3]any
	args  []any
	index map[string]int
}

// scriptCall is one request's script: its keys and arguments (in buffers
// of its own, so that a call is one allocation, reused through callPool),
// and its answer.
type scriptCall struct {
	keys    []string
	args    []any
	limits  []*[3]any // each check's limit arguments (Redis.limitArgs), for allowBatch
	keysBuf [4]string
	argsBuf [16]any
	limBuf  [4]*[3]any
	queued  time.Time
	val     any
	err     error
	done    chan struct{} // one send when val and err are set
}

var callPool = sync.Pool{New: func() any { return &scriptCall{done: make(chan struct{}, 1)} }}

// newCall returns an empty call from the pool.
func newCall() *scriptCall {
	c := callPool.Get().(*scriptCall)
	c.keys, c.args, c.limits = c.keysBuf[:0], c.argsBuf[:0], c.limBuf[:0]
	return c
}

// release puts an answered call back in the pool.
func (c *scriptCall) release() {
	clear(c.keysBuf[:])
	clear(c.argsBuf[:])
	clear(c.limBuf[:])
	c.val, c.err = nil, nil
	callPool.Put(c)
}

// run takes call's checks with the other requests' queued with it (one
// allowBatch script, or allowChecks when alone); ctx (the request's) ends
// the wait early. The call goes back to the pool once answered; a call
// left behind by its request is the garbage collector's.
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
	if len(batch) == 1 {
		call := batch[0]
		call.val, call.err = allowChecks.Run(ctx, c.rdb, call.keys, call.args...).Result()
		call.done <- struct{}{}
	} else {
		c.batchArgs(batch)
		vals, err := allowBatch.Run(ctx, c.rdb, c.keys, c.args...).Slice()
		if err == nil && len(vals) != len(batch) {
			err = fmt.Errorf("unexpected batch reply of %d values for %d requests", len(vals), len(batch))
		}
		clear(c.args) // the arguments hold no call's strings past its answer
		for i, call := range batch {
			if err != nil {
				call.err = err
			} else {
				call.val = vals[i]
			}
			call.done <- struct{}{}
		}
	}
	c.mu.Lock()
	more := len(c.queue) > 0
	c.busy = more
	c.mu.Unlock()
	if more {
		go c.flush()
	}
}

// batchArgs sets c.keys and c.args to allowBatch's for batch: each bucket
// key once; the number of distinct limits, and each one's three values;
// the number of requests, and for each its number of checks, then one code
// a check: (key index × limits + limit index) × 2 + gate, indexes from 0.
// The limits are the server's (three), looked up in a slice.
func (c *coalescer) batchArgs(batch []*scriptCall) {
	if c.index == nil {
		c.index = make(map[string]int)
	}
	clear(c.index)
	c.keys, c.lims = c.keys[:0], c.lims[:0]
	for _, call := range batch {
		for _, l := range call.limits {
			if !slices.Contains(c.lims, l) {
				c.lims = append(c.lims, l)
			}
		}
	}
	c.args = append(c.args[:0], len(c.lims))
	for _, l := range c.lims {
		c.args = append(c.args, l[0], l[1], l[2])
	}
	c.args = append(c.args, len(batch))
	nlim := len(c.lims)
	for _, call := range batch {
		c.args = append(c.args, len(call.keys))
		for i, k := range call.keys {
			j, ok := c.index[k]
			if !ok {
				j = len(c.keys)
				c.keys = append(c.keys, k)
				c.index[k] = j
			}
			code := (j*nlim + slices.Index(c.lims, call.limits[i])) * 2
			if call.args[4*i+3] == "1" {
				code++
			}
			c.args = append(c.args, code)
		}
	}
}
