package store

import (
	"sync"

	"github.com/adsnap/svc/api-server/internal/wirejson"
)

// Page is one page of rows as a *Page method read it. On PostgreSQL the
// text of its rows lives in one buffer of the page (the arena: the strings
// point into it, unsafe.String, instead of a string allocation each, which
// profiles showed as most of the insights scan's cost), and pages are
// reused through a pool. That memory never leaves this package: a caller
// gets the rows only as JSON (AppendJSON), copied into its own buffer, and
// releases the page after. TestPageRelease poisons released arenas and
// checks that no returned value changes.
type Page[R any] struct {
	rows     []R
	arena    []byte
	pool     *sync.Pool
	released bool
}

// PageOf returns a page of rows that the caller made (tests, doubles);
// Release leaves them alone.
func PageOf[R any](rows []R) *Page[R] { return &Page[R]{rows: rows} }

// poisonReleased, set by tests, overwrites an arena on release.
var poisonReleased bool

func (p *Page[R]) init(pool *sync.Pool, limit int) {
	p.pool, p.released = pool, false
	p.rows, p.arena = p.rows[:0], p.arena[:0]
	if cap(p.rows) < limit {
		p.rows = make([]R, 0, limit)
	}
}

// Len is the number of rows read.
func (p *Page[R]) Len() int {
	if p == nil {
		return 0
	}
	return len(p.rows)
}

// jsonRow is a row the generated encoder writes (resources_gen.go).
type jsonRow interface {
	appendJSON(a *wirejson.Appender)
}

// AppendJSON appends the first n rows to b as a JSON array, as the API
// returns them. ok is false if a value has no JSON form (a non-finite
// number, a time outside years 0–9999). A nil page is empty.
func (p *Page[R]) AppendJSON(b []byte, n int) (_ []byte, ok bool) {
	if p == nil {
		return append(b, "[]"...), true
	}
	if p.released {
		panic("store: page used after Release")
	}
	a := wirejson.Appender{B: append(b, '['), OK: true}
	for i := range p.rows[:n] {
		if i > 0 {
			a.B = append(a.B, ',')
		}
		any(&p.rows[i]).(jsonRow).appendJSON(&a)
	}
	a.B = append(a.B, ']')
	return a.B, a.OK
}

// Release returns the page's memory for reuse; the page must not be used
// after. Pages of PageOf are left alone.
func (p *Page[R]) Release() {
	if p == nil || p.pool == nil || p.released {
		return
	}
	p.released = true
	if poisonReleased {
		for i := range p.arena[:cap(p.arena)] {
			p.arena[:cap(p.arena)][i] = 0xff
		}
	}
	if cap(p.rows) > 2*1024 || cap(p.arena) > 1<<20 {
		return
	}
	clear(p.rows[:cap(p.rows)]) // a pooled page keeps no former page's text alive
	p.pool.Put(p)
}
