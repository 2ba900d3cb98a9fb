package server

import (
	"context"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
)

// partialLimiter is a limiter whose store has parts that fail alone
// (ratelimit.Redis on a Redis Cluster: a master per slot range; issue 36).
// Such a limiter refuses per part itself (a breaker per master), so the
// server keeps its process-wide limiter breaker out of it: one master's
// failures must not refuse the requests whose buckets live on the others.
// Readiness asks each part (ProbeNodes) and stays ready while one serves.
type partialLimiter interface {
	// PerNode reports whether the store is made of such parts.
	PerNode() bool
	// ProbeNodes takes a limiter request on every part and returns each
	// one's state; it fails only when no part serves.
	ProbeNodes(ctx context.Context) ([]ratelimit.NodeStatus, error)
}

// partialOf returns l as a partialLimiter when its store has parts (taken
// before instrument wraps the limiter), else nil.
func partialOf(l ratelimit.Limiter) partialLimiter {
	if p, ok := l.(partialLimiter); ok && p.PerNode() {
		return p
	}
	return nil
}

// probeNodes is readiness's limiter check on a partial limiter: "ok" when
// every part serves, "degraded" when some do (ready: the load balancer
// cannot do better by sending the traffic to another replica, which shares
// the store), an error when none does. nodes is each part's state, for the
// detail on the metrics listener.
func (s *Server) probeNodes(ctx context.Context) (status string, nodes []ratelimit.NodeStatus, err error) {
	nodes, err = s.partial.ProbeNodes(ctx)
	if err != nil {
		return "unavailable", nodes, err
	}
	for _, n := range nodes {
		if !n.Healthy {
			return "degraded", nodes, nil
		}
	}
	return "ok", nodes, nil
}
