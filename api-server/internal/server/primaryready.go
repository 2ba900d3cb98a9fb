package server

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"
)

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

// fencedChecker is a Store that remembers whether its PostgreSQL primary
// was last found not writable (*store.Store and *store.Routed: Fenced).
type fencedChecker interface {
	Fenced() error
}

// refuseFenced refuses API requests (503, as for a database that is down)
// while the configured primary is read-only or in recovery (fenced or
// demoted; issue 40). Such a server cannot be told from an old primary
// beside a new one, where a key revoked on the new primary is still valid:
// answering from it would let a revoked key read data. So the API serves
// only while the primary accepts writes, as /readyz says; a read-only
// maintenance window is unavailability, not stale answers
// (api-server/README.md, "A fenced primary").
// It returns false when it has answered.
func (s *Server) refuseFenced(c *gin.Context, st *reqState) bool {
	if s.fencedCheck == nil {
		return true
	}
	if err := s.fencedCheck.Fenced(); err != nil {
		st.depFail = true
		s.failures.note(c.Request.Context(), s.log, "database unavailable: the primary is not writable", err, s.now())
		s.refuse(c, http.StatusServiceUnavailable, "the database is unavailable; reads fail closed, try again later")
		return false
	}
	return true
}
