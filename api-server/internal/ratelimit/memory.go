package ratelimit

import (
	"context"
	"sync"
	"time"
)

// Memory is the in-process limiter: the same GCRA as Redis, for one
// replica. Limits are per process; the server says so when it starts.
type Memory struct {
	now func() time.Time

	mu      sync.Mutex
	tat     map[string]time.Time
	counter int
}

// NewMemory returns an in-process limiter. now may be nil (time.Now).
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{now: now, tat: make(map[string]time.Time)}
}

// Allow implements Limiter. It never fails.
func (m *Memory) Allow(_ context.Context, checks []Check, results []Result) error {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	var newTAT [8]time.Time
	refused := false
	n := len(checks)
	for i, c := range checks {
		r, tat := gcra(now, m.tat[c.Key], c.Limit)
		results[i] = r
		if i < len(newTAT) {
			newTAT[i] = tat
		}
		if !r.Allowed {
			refused = true
			if c.Gate {
				clear(results[i+1 : len(checks)])
				n = i + 1
				break
			}
		}
	}
	// All or nothing: the buckets are charged only when none refused.
	if !refused {
		for i, c := range checks[:n] {
			tat := newTAT[min(i, len(newTAT)-1)]
			if i >= len(newTAT) { // more checks than the buffer: recompute
				_, tat = gcra(now, m.tat[c.Key], c.Limit)
			}
			m.tat[c.Key] = tat
		}
	}
	m.counter++
	if m.counter%4096 == 0 {
		for k, t := range m.tat {
			if t.Before(now) { // a full bucket needs no entry
				delete(m.tat, k)
			}
		}
	}
	return nil
}

// Ping implements Limiter.
func (m *Memory) Ping(context.Context) error { return nil }

// Close implements Limiter.
func (m *Memory) Close() error { return nil }
