package server

// Admission, after the limits: at most MaxInFlight requests past the
// limiter at once, in arrival order (admit, leave).

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
)

// admit lets at most MaxInFlight requests through at once, in the order
// they arrived, each until its page is read (leave). Each admitted request
// holds at most one database connection at a time (key lookup, then page),
// so with MaxInFlight equal to the pool's
// size no request waits inside database/sql's pool, which hands a freed
// connection to a random waiter: under load that random order, not the
// work, made the slowest requests (p99 about 2.4× the median in the
// benchmark). Waiting here costs a goroutine, no connection. It comes after
// the limiter, so that nothing waits here behind a stalled limit store, and a
// request waits at most the database deadline (then 503 with Retry-After: a
// stalled database must not make the queue grow without end). A client that
// leaves while waiting is logged as 499 at info. It returns false when it
// has answered; serve gives an admitted request's place back (leave).
func (s *Server) admit(c *gin.Context, st *reqState) bool {
	if s.gate == nil {
		return true
	}
	var t0 time.Time
	if s.metrics != nil {
		t0 = time.Now()
		s.metrics.Queued()
	}
	var err error
	// A free place with nobody waiting (TryAcquire keeps the arrival
	// order: it fails when anyone waits) costs no context and no timer.
	if !s.gate.TryAcquire(1) {
		ctx, cancel := context.WithTimeout(c.Request.Context(), s.dbWait)
		err = s.gate.Acquire(ctx, 1)
		cancel()
	}
	if s.metrics != nil {
		s.admitWait(t0, err)
	}
	if err != nil {
		if clientGone(c.Request.Context()) {
			c.AbortWithStatus(statusClientClosed)
			return false
		}
		st.depFail = true
		s.failures.note(c.Request.Context(), s.log, "server busy: no place freed within the database deadline", err, s.now())
		s.refuse(c, http.StatusServiceUnavailable, "the server is busy; try again in a second")
		return false
	}
	st.admitted = true
	return true
}

// leave gives back the request's place in the admission gate, once:
// readRows leaves as soon as the rows are read and the key checked (the page
// is in memory, its connection back in the pool, and the key's state read
// again if its epoch moved), so that encoding the page and writing it to a
// client, however slow that client reads, hold no place;
// serve leaves for a request that ended before.
func (s *Server) leave(st *reqState) {
	if st.admitted {
		st.admitted = false
		s.gate.Release(1)
	}
}
