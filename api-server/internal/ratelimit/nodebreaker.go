package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// On a Redis Cluster one master can fail while the others serve: only the
// requests whose buckets live on it may be refused, and only until the
// Cluster has failed over (issue 36). So a Cluster limiter has a breaker
// per master (nodeBreakers, taken in runGroup and refundGroup), not one
// per process, and every failure asks go-redis to reload the Cluster's
// layout (ClusterClient.ReloadState: CLUSTER SLOTS from a node that
// answers, at most one reload every 200 ms, in the background), so that
// the groups of a failed master's slots go to its promoted replica as soon
// as the Cluster says so, not at go-redis's periodic reload (10 s) or the
// next MOVED (which a dead master never sends).
//
// A breaker trips after nodeTrip failures of its master in a row: its
// groups are then refused at once (ErrUnavailable, no round trip) while the
// last failure is less than nodeOpen old, except one probe nodeProbe after
// the last failure (and after the last probe), whose success closes it. A group is charged on the master
// that the client's current layout names for its slot, so a group whose
// slot has moved to a healthy master goes there at once, whatever the old
// master's breaker says. An error reply (CLUSTERDOWN, a script error) is
// an answer, not a failure of the node: it reloads the layout but does not
// count.
type nodeBreakers struct {
	m sync.Map // master address (host:port) → *nodeBreaker; read on every request, written once a master
}

type nodeBreaker struct {
	inARow    atomic.Int64
	lastFail  atomic.Int64 // unix nanoseconds
	lastProbe atomic.Int64
}

const (
	nodeTrip  = 3
	nodeOpen  = time.Second
	nodeProbe = 100 * time.Millisecond
)

// errNodeDown is the error of a group refused by its master's open breaker.
var errNodeDown = errors.New("cluster master failing, not asked (breaker open)")

// of returns the breaker of addr, made on first use.
func (nb *nodeBreakers) of(addr string) *nodeBreaker {
	if b, ok := nb.m.Load(addr); ok {
		return b.(*nodeBreaker)
	}
	b, _ := nb.m.LoadOrStore(addr, &nodeBreaker{})
	return b.(*nodeBreaker)
}

// allow reports whether a group may ask the master at now.
func (b *nodeBreaker) allow(now time.Time) bool {
	if b.inARow.Load() < nodeTrip {
		return true
	}
	n := now.UnixNano()
	if n-b.lastFail.Load() >= int64(nodeOpen) {
		return true
	}
	p := b.lastProbe.Load()
	return n-p >= int64(nodeProbe) && b.lastProbe.CompareAndSwap(p, n)
}

// failed records a failure at now. It counts as the last probe too, so
// that the next one goes nodeProbe after it (a probe that waited out the
// deadline does not let the next request through at once).
func (b *nodeBreaker) failed(now time.Time) {
	b.lastFail.Store(now.UnixNano())
	b.lastProbe.Store(now.UnixNano())
	b.inARow.Add(1)
}

func (b *nodeBreaker) succeeded() {
	if b.inARow.Load() != 0 {
		b.inARow.Store(0)
	}
}

// open reports whether the breaker refuses at now (for readiness detail).
func (b *nodeBreaker) open(now time.Time) bool {
	return b.inARow.Load() >= nodeTrip && now.UnixNano()-b.lastFail.Load() < int64(nodeOpen)
}

// master returns the address of the master that the client's current
// layout names for key's slot, and its breaker ("" and nil when the layout
// cannot be had: the call then goes to go-redis, which fails it).
func (r *Redis) master(ctx context.Context, key string) (string, *nodeBreaker) {
	c, ok := r.rdb.(*redis.ClusterClient)
	if !ok {
		return "", nil
	}
	n, err := c.MasterForKey(ctx, key)
	if err != nil {
		return "", nil
	}
	addr := n.Options().Addr
	return addr, r.nodes.of(addr)
}

// guarded runs call (one group's script or refund, on the master of key)
// behind that master's breaker, and tells the breaker and go-redis's
// layout how it went. ctx is the call's: a failure caused by its caller
// leaving (context.Canceled) says nothing of the node.
func (r *Redis) guarded(ctx context.Context, key string, call func() error) error {
	addr, b := r.master(ctx, key)
	if b != nil && !b.allow(time.Now()) {
		r.reload()
		return fmt.Errorf("%w: %s: %w", ErrUnavailable, addr, errNodeDown)
	}
	err := call()
	switch {
	case err == nil:
		if b != nil {
			b.succeeded()
		}
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		// The caller left: nothing learnt.
	case isReply(err):
		// The node answered (CLUSTERDOWN while the Cluster fails over,
		// MOVED past the redirections): not its failure, but the layout
		// may be changing.
		r.reload()
	default:
		if b != nil {
			b.failed(time.Now())
		}
		r.reload()
	}
	return err
}

// isReply reports whether err is an error reply of Redis (the node
// answered), not a failure to reach it or a missed deadline.
func isReply(err error) bool {
	var re redis.Error
	return errors.As(err, &re)
}

// reload asks go-redis to reload the Cluster's layout in the background
// (coalesced by go-redis: one reload at a time, then 200 ms of cooldown).
func (r *Redis) reload() {
	if c, ok := r.rdb.(*redis.ClusterClient); ok {
		c.ReloadState(context.Background())
	}
}

// PerNode reports whether the limiter refuses per part of its store (a
// Redis Cluster: one breaker per master, ProbeNodes for readiness), so
// that its caller keeps no breaker of its own over all of it: one master's
// failures must not refuse the requests of the others.
func (r *Redis) PerNode() bool { return r.cluster }
