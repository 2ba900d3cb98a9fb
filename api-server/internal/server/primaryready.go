package server

import "context"

// readyChecker is a Store whose readiness check says more than "answers"
// (*store.Store and *store.Routed: the configured PostgreSQL primary is
// writable, not in recovery and not fenced read-only; issue 36).
type readyChecker interface {
	Ready(ctx context.Context) error
}

// checkDatabase is readiness's database check: the store's Ready when it
// has one (taken before instrument wraps the store), else its Ping.
func (s *Server) checkDatabase(ctx context.Context) error {
	if s.readyCheck != nil {
		return s.readyCheck.Ready(ctx)
	}
	return s.store.Ping(ctx)
}
