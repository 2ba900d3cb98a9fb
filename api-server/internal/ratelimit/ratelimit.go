package ratelimit

import (
	"context"
	"errors"
	"time"
)

// ErrUnavailable reports that the limit store failed or did not answer in time.
var ErrUnavailable = errors.New("rate limit store unavailable")

// Limit is a bucket's quota: Rate requests per Period, with a burst of Rate.
type Limit struct {
	Name   string // "key", "org" or "ip": the bucket named in headers and messages
	Rate   int
	Period time.Duration
}

// PerMinute returns a limit of rate requests per minute.
func PerMinute(name string, rate int) Limit {
	return Limit{Name: name, Rate: rate, Period: time.Minute}
}

// Check asks for one request from the bucket Key under Limit.
type Check struct {
	Limit Limit
	Key   string // e.g. "key:<key id>"; the limiter adds its namespace
	// Group names the buckets that must be charged together, all or
	// nothing, even on a Redis Cluster: the checks of one group live in
	// one slot (Group is their hash tag). Empty: the bucket is a group of
	// its own. Checks of one group must be next to each other.
	Group string
	// Gate: when this bucket refuses, the checks after it are not taken
	// (their buckets are untouched and their results left zero), as if the
	// request had stopped there.
	Gate bool
}

// Result is the state of one bucket after a check.
type Result struct {
	Limit      Limit
	Allowed    bool
	Remaining  int
	ResetAfter time.Duration // until the bucket is full again
	RetryAfter time.Duration // until one request would be allowed (0 if allowed)
}

// Limiter takes requests from buckets.
type Limiter interface {
	// Allow takes one request from the bucket of every check, writing one
	// result per check into results (len(results) >= len(checks)), until a
	// Gate check refuses: the results after it are left zero. Charging is
	// all or nothing: when any bucket refuses, no bucket is charged (the
	// results of the others say what they would have allowed). All the
	// checks of a call see the same instant. Any store failure, including a
	// missed deadline, wraps ErrUnavailable. On a Redis Cluster each group
	// of checks (Check.Group) is charged all or nothing and sees its own
	// instant; the charges of earlier groups are given back when a later
	// one refuses (Redis states the bound this leaves), and the groups after
	// a refusing one are not taken (their results are left zero).
	Allow(ctx context.Context, checks []Check, results []Result) error
	// Ping reports whether the store answers.
	Ping(ctx context.Context) error
	// Close releases the store's connections.
	Close() error
}

// gcra is the generic cell rate algorithm as redis_rate implements it, on
// one bucket whose theoretical arrival time is tat. It returns the result
// and the new tat (unchanged when refused).
func gcra(now, tat time.Time, l Limit) (Result, time.Time) {
	interval := l.Period / time.Duration(l.Rate)
	burst := interval * time.Duration(l.Rate)
	if tat.Before(now) {
		tat = now
	}
	newTAT := tat.Add(interval)
	allowAt := newTAT.Add(-burst)
	diff := now.Sub(allowAt)
	remaining := int(diff / interval)
	if diff < 0 || remaining < 0 {
		return Result{Limit: l, Allowed: false, Remaining: 0, ResetAfter: tat.Sub(now), RetryAfter: -diff}, tat
	}
	return Result{Limit: l, Allowed: true, Remaining: remaining, ResetAfter: newTAT.Sub(now)}, newTAT
}
