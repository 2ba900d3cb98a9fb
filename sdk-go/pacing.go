package svc

import (
	"context"
	"sync"
	"time"
)

// Retries of transient failures (connection errors, 502, 503, 504).
const (
	// MaxTries is how many times a request is sent at most when it fails
	// with a connection error or a 502, 503 or 504 answer.
	MaxTries = 3
	// bulkRateLimitRetries is how many times an iterator (All, Pages)
	// waits and retries one request answered 429, whatever
	// WithRetryOnRateLimit says: an iterator goes on from where it was
	// rather than failing half-way.
	bulkRateLimitRetries = 3
	// defaultRetryBase is the first backoff after a transient failure; it
	// doubles at each try, with full jitter.
	defaultRetryBase = time.Second
	// maxRetryAfterOnFailure caps the Retry-After of a 503 that the
	// backoff honours.
	maxRetryAfterOnFailure = 30 * time.Second
)

// WaitReason says why the client pauses before a request.
type WaitReason string

// The reasons of a Wait.
const (
	// WaitPacing: the service reported no request left in the tightest
	// rate-limit bucket, so the client spaces its requests as the bucket
	// refills (one a second at 60 a minute) instead of meeting a 429.
	WaitPacing WaitReason = "pacing"
	// WaitRateLimited: the service answered 429; the client waits its
	// Retry-After plus jitter.
	WaitRateLimited WaitReason = "rate limited"
	// WaitRetry: a connection error or a 502, 503 or 504 answer; the client
	// backs off before trying again.
	WaitRetry WaitReason = "retry"
)

// Wait describes a pause the client makes before sending a request.
type Wait struct {
	// Endpoint is the request, such as "GET /insights".
	Endpoint string
	// Duration is how long the client waits.
	Duration time.Duration
	// Reason says why.
	Reason WaitReason
	// Err is the failure that caused a WaitRateLimited or WaitRetry wait;
	// nil for pacing.
	Err error
}

// Hooks are functions the client calls as it works, for progress reports.
// They run on the goroutine making the request and should return quickly.
type Hooks struct {
	// OnResponse is called after every answer of the service, success or
	// not, before its body is decoded.
	OnResponse func(*Response)
	// OnWait is called before every pause (pacing, 429, retry).
	OnWait func(Wait)
}

// WithHooks sets functions the client calls after each answer and before
// each pause, such as a progress display.
func WithHooks(h Hooks) Option {
	return func(c *config) error {
		c.hooks = h
		return nil
	}
}

type hooksKey struct{}

// ContextWithHooks returns a context whose requests also call h, after the
// client's own hooks (WithHooks): for the progress or the metadata of one
// operation, such as one All iteration, on a client shared by several.
func ContextWithHooks(ctx context.Context, h Hooks) context.Context {
	return context.WithValue(ctx, hooksKey{}, h)
}

func (c *Client) notifyWait(ctx context.Context, w Wait) {
	if c.cfg.hooks.OnWait != nil {
		c.cfg.hooks.OnWait(w)
	}
	if h, ok := ctx.Value(hooksKey{}).(Hooks); ok && h.OnWait != nil {
		h.OnWait(w)
	}
}

func (c *Client) notifyResponse(ctx context.Context, r *Response) {
	if c.cfg.hooks.OnResponse != nil {
		c.cfg.hooks.OnResponse(r)
	}
	if h, ok := ctx.Value(hooksKey{}).(Hooks); ok && h.OnResponse != nil {
		h.OnResponse(r)
	}
}

// pacer spaces the requests of one client by the rate-limit headers of the
// answers: when the tightest bucket reported has no request left, the next
// request waits one interval of that bucket (Window / Quota) after the
// answer, and each request after it one more interval, so that a client
// reading page after page never meets a 429. It is hand-written (rather
// than golang.org/x/time/rate) because the module uses the standard
// library only, and because it follows the server's own counts, not a
// guess of the rate.
type pacer struct {
	mu        sync.Mutex
	remaining int           // in the tightest bucket; -1 unknown
	interval  time.Duration // of that bucket
	next      time.Time     // earliest next request while remaining is 0
}

func newPacer() *pacer { return &pacer{remaining: -1} }

// reserve takes a place for one request at now and returns how long to
// wait before sending it.
func (p *pacer) reserve(now time.Time) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.remaining != 0 {
		if p.remaining > 0 {
			p.remaining--
		}
		return 0
	}
	at := p.next
	if at.Before(now) {
		at = now
	}
	p.next = at.Add(p.interval)
	return at.Sub(now)
}

// observe records the buckets an answer reported at now.
func (p *pacer) observe(now time.Time, limits []RateLimit) {
	tight := -1
	for i, l := range limits {
		if l.Remaining >= 0 && (tight < 0 || l.Remaining < limits[tight].Remaining) {
			tight = i
		}
	}
	if tight < 0 {
		// No bucket reported: nothing to pace by.
		p.mu.Lock()
		p.remaining = -1
		p.mu.Unlock()
		return
	}
	l := limits[tight]
	interval := l.Interval()
	if interval <= 0 {
		interval = time.Second
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.remaining, p.interval = l.Remaining, interval
	if l.Remaining == 0 {
		if at := now.Add(interval); at.After(p.next) {
			p.next = at
		}
	}
}
