package server

import "sync/atomic"

// Drain makes /readyz (the public one and the metrics listener's) answer
// 503 from now on, while the API keeps serving: the first step of a
// graceful stop (svc-api serve --drain-delay, issue 36), so that a load
// balancer checking /readyz takes the replica out before its listener
// closes. It cannot be undone: the process is stopping.
func (h *Handlers) Drain() {
	if h.draining != nil {
		h.draining.Store(true)
	}
}

// drainingMessage is /readyz's message while the server drains.
const drainingMessage = "not ready: shutting down"

// isDraining reports whether Drain was called.
func (s *Server) isDraining() bool { return s.draining.Load() }

// drainFlag is the type of Server.draining, which Handlers points to.
type drainFlag = atomic.Bool
