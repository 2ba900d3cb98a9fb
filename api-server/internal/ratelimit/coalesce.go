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
type coalescer struct {
	rdb      redis.UniversalClient
	deadline time.Duration

	mu    sync.Mutex
	queue []*scriptCall
	busy  bool // a pipeline is out (or about to be)
}

type scriptCall struct {
	keys []string
	args []any
	val  any
	err  error
	done chan struct{}
}

// run runs allowChecks on keys and args, in a pipeline with the other
// requests' scripts; ctx bounds the wait.
func (c *coalescer) run(ctx context.Context, keys []string, args []any) (any, error) {
	call := &scriptCall{keys: keys, args: args, done: make(chan struct{})}
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
		return call.val, call.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// flush sends the queued scripts in one pipeline, on its own deadline
// (the requests' contexts bound their waits, not the others' pipeline).
func (c *coalescer) flush() {
	c.mu.Lock()
	batch := c.queue
	c.queue = nil
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), c.deadline)
	defer cancel()
	if len(batch) == 1 {
		call := batch[0]
		call.val, call.err = allowChecks.Run(ctx, c.rdb, call.keys, call.args...).Result()
		close(call.done)
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
			close(call.done)
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
