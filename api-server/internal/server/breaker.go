package server

// The breakers of the limit store and the database: after a few failures in
// a row, requests get 503 at once instead of waiting out a deadline each.

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/store"
)

// errLimiterDown: the breaker is open; the limit store was not asked.
var errLimiterDown = fmt.Errorf("%w: failing, not asked (breaker open)", ratelimit.ErrUnavailable)

// errDatabaseDown: the database breaker is open; the database was not asked.
var errDatabaseDown = errors.New("database failing, not asked (breaker open)")

// breaker makes a failing dependency (the limit store, the database) cost
// a request nothing: after
// breakerTrip failures in a row, requests are refused at once (503) while
// the last failure is less than breakerOpen old, except one probe every
// breakerProbe, whose success closes it again. Without it every request
// waits out the store's deadline, and under load those waits pile up
// (issue #22 point 1). Hand-written: the few lines of state are simpler
// than adapting a general circuit-breaker library to "fail closed".
type breaker struct {
	inARow    atomic.Int64
	lastFail  atomic.Int64 // unix nanoseconds
	lastProbe atomic.Int64
}

const (
	breakerTrip  = 3
	breakerOpen  = time.Second
	breakerProbe = 100 * time.Millisecond
)

// allow reports whether a request may ask the limit store at now.
func (b *breaker) allow(now time.Time) bool {
	if b.inARow.Load() < breakerTrip {
		return true
	}
	n := now.UnixNano()
	if n-b.lastFail.Load() >= int64(breakerOpen) {
		return true
	}
	p := b.lastProbe.Load()
	return n-p >= int64(breakerProbe) && b.lastProbe.CompareAndSwap(p, n)
}

func (b *breaker) failed(now time.Time) {
	b.lastFail.Store(now.UnixNano())
	b.inARow.Add(1)
}

func (b *breaker) succeeded() {
	if b.inARow.Load() != 0 {
		b.inARow.Store(0)
	}
}

// noteDatabase tells the database breaker how a call ended: a failure
// of the database (store.Unavailable, not caused by the client leaving)
// counts; an answer, even "no such key" or an error, does not.
func (s *Server) noteDatabase(ctx context.Context, err error) {
	switch {
	case err == nil, !store.Unavailable(err): // the database answered
		s.dbBreaker.succeeded()
	case !clientGone(ctx):
		s.dbBreaker.failed(s.now())
	}
}
