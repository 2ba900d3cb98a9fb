package ratelimit

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// coalescer sends the limit scripts of concurrent requests to one Redis
// (not a Cluster) in one pipeline: while a pipeline is out, the scripts of
// the requests that arrive queue, and go together in the next one as soon
// as it returns. Nothing waits for a timer, and a request alone is sent at
// once; under load a round trip, and Redis's and svc-api's system calls
// for it, are shared by the requests in flight. Each script still runs
// atomically in Redis, in arrival order: the limits are exactly those of
// one call per request. It starts no goroutine of its own: the request
// that finds no pipeline out sends one, and one that finishes with
// scripts queued hands them to a new goroutine.
//
// Each call is bounded by deadline from the moment it queued, with one
// context per pipeline, not one per call: a pipeline's deadline is its
// oldest call's, and the pipeline before it ended by its own deadline,
// which came no later, so no call waits longer than deadline.
type coalescer struct {
	rdb      redis.UniversalClient
	deadline time.Duration

	mu    sync.Mutex
	queue []*scriptCall
	busy  bool // a pipeline is out (or about to be)
}

// scriptCall is one request's script: its keys and arguments (in buffers
// of its own, so that a call is one allocation, reused through callPool),
// and its answer.
type scriptCall struct {
	keys    []string
	args    []any
	keysBuf [4]string
	argsBuf [16]any
	queued  time.Time
	val     any
	err     error
	done    chan struct{} // one send when val and err are set
}

var callPool = sync.Pool{New: func() any { return &scriptCall{done: make(chan struct{}, 1)} }}

// newCall returns an empty call from the pool.
func newCall() *scriptCall {
	c := callPool.Get().(*scriptCall)
	c.keys, c.args = c.keysBuf[:0], c.argsBuf[:0]
	return c
}

// release puts an answered call back in the pool.
func (c *scriptCall) release() {
	clear(c.keysBuf[:])
	clear(c.argsBuf[:])
	c.val, c.err = nil, nil
	callPool.Put(c)
}

// run runs allowChecks with call's keys and args, in a pipeline with the
// other requests' scripts; ctx (the request's) ends the wait early. The
// call goes back to the pool once answered; a call left behind by its
// request is the garbage collector's.
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

// flush sends the queued scripts in one pipeline, on the deadline of the
// oldest (the requests' contexts bound their waits, not the others'
// pipeline).
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
		pipe := c.rdb.Pipeline()
		cmds := make([]*redis.Cmd, len(batch))
		for i, call := range batch {
			cmds[i] = pipe.EvalSha(ctx, allowChecks.Hash(), call.keys, call.args...)
		}
		_, _ = pipe.Exec(ctx) // each command carries its own error
		for i, call := range batch {
			call.val, call.err = cmds[i].Result()
			if call.err != nil && redis.HasErrorPrefix(call.err, "NOSCRIPT") {
				// Redis lost its scripts (restart, SCRIPT FLUSH): Run loads it.
				call.val, call.err = allowChecks.Run(ctx, c.rdb, call.keys, call.args...).Result()
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
