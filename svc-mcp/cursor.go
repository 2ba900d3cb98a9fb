package svcmcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"sync"
	"time"

	svc "github.com/adsnap/svc/sdk-go"
)

// Bounded results: every tool returns at most `limit` rows a call (50 by
// default, 100 at most), read with the SDK's All, which goes past the API's
// offset limit (splitting the date range, or listing per account) or fails
// with svc.ErrIncomplete, never ending short. When rows remain, the result
// says complete: false and gives an opaque cursor; the next call with that
// cursor goes on exactly where this one stopped, so a model can neither lose
// rows nor flood its context.
//
// A cursor names a listing kept open in this process: the SDK iterator,
// paused after the rows already returned. Cursors expire after
// CursorIdleTimeout without a call, and at most MaxCursors stay open (the
// oldest is closed first); an expired cursor is refused with a message to
// start the listing again.
const (
	// CursorIdleTimeout is how long a cursor stays usable after its last call.
	CursorIdleTimeout = 30 * time.Minute
	// MaxCursors is how many listings stay open at once.
	MaxCursors = 32
)

// errUnknownCursor is wrapped by the error of a call with an unknown,
// expired or finished cursor, or one of another tool.
var errUnknownCursor = errors.New("unknown cursor")

// listing is an open listing: the paused iterator of one tool call's rows.
type listing struct {
	tool    string
	period  string
	mu      sync.Mutex // one call at a time
	next    func() (any, error, bool)
	stop    func()
	peeked  *any // a row pulled to know whether more remain
	pos     int  // rows returned by earlier calls
	first   *svc.Meta
	used    time.Time
	seq     uint64 // order of use, for equal times
	closed  bool
	metaMu  sync.Mutex
	lastErr error
}

func (l *listing) observe(r *svc.Response) {
	if r.Meta == nil {
		return
	}
	l.metaMu.Lock()
	defer l.metaMu.Unlock()
	if l.first == nil {
		m := *r.Meta
		l.first = &m
	}
}

func (l *listing) meta() svc.Meta {
	l.metaMu.Lock()
	defer l.metaMu.Unlock()
	if l.first == nil {
		return svc.Meta{Source: "stored_snapshot"}
	}
	return *l.first
}

// cursors holds the open listings.
type cursors struct {
	mu  sync.Mutex
	m   map[string]*listing
	now func() time.Time
	seq uint64
}

func newCursors(now func() time.Time) *cursors {
	return &cursors{m: map[string]*listing{}, now: now}
}

// open starts a listing of seq for tool. The iterator runs with ctx's
// values but not its cancellation, since it outlives this call; each of
// its requests is still bounded by the SDK's 15 s time-out.
func openListing[T any](ctx context.Context, tool, period string, start func(context.Context) iter.Seq2[T, error]) *listing {
	l := &listing{tool: tool, period: period}
	ictx := svc.ContextWithHooks(context.WithoutCancel(ctx), svc.Hooks{OnResponse: l.observe})
	next, stop := iter.Pull2(start(ictx))
	l.next = func() (any, error, bool) {
		v, err, ok := next()
		return v, err, ok
	}
	l.stop = stop
	return l
}

// take returns up to n rows of l, and whether the listing is complete.
// With budget > 0 it also stops before the row that would bring the sum of
// cost over budget (a call returns at least one row); that row is kept for
// the next call.
func (l *listing) take(n, budget int, cost func(any) int) (rows []any, complete bool, err error) {
	used := 0
	for len(rows) < n {
		var v any
		if l.peeked != nil {
			v, l.peeked = *l.peeked, nil
		} else {
			var ok bool
			v, err, ok = l.next()
			if !ok {
				return rows, true, nil
			}
			if err != nil {
				return rows, false, err
			}
		}
		if budget > 0 {
			c := cost(v)
			if len(rows) > 0 && used+c > budget {
				l.peeked = &v
				return rows, false, nil
			}
			used += c
		}
		rows = append(rows, v)
	}
	if l.peeked != nil {
		return rows, false, nil
	}
	// Pull one more row to say exactly whether more remain.
	v, err, ok := l.next()
	switch {
	case !ok:
		return rows, true, nil
	case err != nil:
		l.lastErr = err
		return rows, false, nil
	}
	l.peeked = &v
	return rows, false, nil
}

// put stores l under a new cursor and returns the cursor.
func (c *cursors) put(l *listing) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	id := "c1." + hex.EncodeToString(b)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire()
	for len(c.m) >= MaxCursors {
		var oldest string
		for k, v := range c.m {
			if o := c.m[oldest]; oldest == "" || v.used.Before(o.used) || v.used.Equal(o.used) && v.seq < o.seq {
				oldest = k
			}
		}
		c.drop(oldest)
	}
	c.touch(l)
	c.m[id] = l
	return id
}

// get returns the listing of cursor for tool.
func (c *cursors) get(cursor, tool string) (*listing, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire()
	l, ok := c.m[cursor]
	if !ok || l.tool != tool {
		return nil, fmt.Errorf("%w: the cursor is unknown, finished, of another tool, or expired (cursors last %s without a call and end with the server); call %s again without cursor to start the listing again",
			errUnknownCursor, CursorIdleTimeout, tool)
	}
	c.touch(l)
	return l, nil
}

func (c *cursors) touch(l *listing) {
	c.seq++
	l.used, l.seq = c.now(), c.seq
}

// forget closes the listing of cursor.
func (c *cursors) forget(cursor string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drop(cursor)
}

func (c *cursors) expire() {
	for k, v := range c.m {
		if c.now().Sub(v.used) > CursorIdleTimeout {
			c.drop(k)
		}
	}
}

func (c *cursors) drop(k string) {
	if l, ok := c.m[k]; ok {
		delete(c.m, k)
		go l.close() // it may be in use; close waits for the call
	}
}

func (l *listing) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.closed = true
		l.stop()
	}
}

// page is the result of one bounded call.
type page[T any] struct {
	rows     []T
	meta     svc.Meta // of the listing; Offset, Limit, Returned, NextOffset of this call
	period   string
	complete bool
	cursor   *string
}

// bounded serves one call of tool: it continues the listing of cursor, or
// starts one with start, and returns at most limit rows.
//
// Without limit (0), a call returns at most defaultRows rows, and fewer
// when their values would take more than budget bytes (cellBytes of each
// row, which counts both channels).
func bounded[T, R any](ctx context.Context, t *tools, tool, cursor string, limit, offset int, period string, budget int,
	start func(context.Context) iter.Seq2[T, error], conv func(T) R) (page[R], error) {
	if limit == 0 {
		limit = defaultRows
	}
	var l *listing
	if cursor != "" {
		var err error
		if l, err = t.cursors.get(cursor, tool); err != nil {
			return page[R]{}, err
		}
	} else {
		l = openListing(ctx, tool, period, start)
		l.pos = offset
	}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return page[R]{}, fmt.Errorf("%w: the listing was closed; call %s again without cursor", errUnknownCursor, tool)
	}
	if l.lastErr != nil {
		err := l.lastErr
		l.mu.Unlock()
		t.cursors.forget(cursor)
		l.close()
		return page[R]{}, err
	}
	rows, complete, err := l.take(limit, budget, func(v any) int { return cellBytes(conv(v.(T))) })
	pos := l.pos
	l.pos += len(rows)
	l.mu.Unlock()
	if err != nil {
		if cursor != "" {
			t.cursors.forget(cursor)
		}
		l.close()
		return page[R]{}, err
	}
	out := page[R]{rows: make([]R, len(rows)), meta: l.meta(), period: l.period, complete: complete}
	for i, v := range rows {
		out.rows[i] = conv(v.(T))
	}
	out.meta.Limit, out.meta.Offset, out.meta.Returned, out.meta.NextOffset = limit, pos, len(rows), nil
	switch {
	case complete:
		if cursor != "" {
			t.cursors.forget(cursor)
		}
		l.close()
	case cursor != "":
		out.cursor = &cursor
	default:
		id := t.cursors.put(l)
		out.cursor = &id
	}
	if !complete {
		n := pos + len(rows)
		out.meta.NextOffset = &n
	}
	return out, nil
}

const (
	// defaultRows is the most rows a call returns when limit is not given.
	defaultRows = 50
	// rowBudgetBytes bounds the values of the rows of a call without limit,
	// in both channels (cellBytes), so that one result stays under about
	// 8,000 tokens with its provenance line, meta and column names
	// (tokens_test.go in e2e measures it): about 2.9 bytes a token for
	// these rows.
	rowBudgetBytes = 20000
)
