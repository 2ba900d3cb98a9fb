package svc

import (
	"context"
	"fmt"
	"iter"
)

// list fetches one page of endpoint with opts, validated first.
func list[T any](ctx context.Context, c *Client, endpoint string, opts lister) (*Page[T], error) {
	q, err := opts.query(DateOf(c.cfg.now().UTC()))
	if err != nil {
		return nil, err
	}
	page := new(Page[T])
	if err := c.get(ctx, endpoint, q, page); err != nil {
		return nil, err
	}
	return page, nil
}

// all iterates over every row of endpoint, page after page, following
// meta.nextOffset until it is null. opts is copied when all is called, so
// the caller may reuse it, and every range over the result starts again from
// opts.Offset. The first error is yielded once, with a zero T, and ends the
// iteration; so does a change of meta.dataAsOf between pages.
func all[T, O any, P interface {
	*O
	lister
}](ctx context.Context, c *Client, endpoint string, opts *O) iter.Seq2[T, error] {
	start := copyOrZero(opts)
	return func(yield func(T, error) bool) {
		cur := *start
		p := P(&cur)
		var zero T
		var asOf string
		for first := true; ; first = false {
			page, err := list[T](ctx, c, endpoint, p)
			if err != nil {
				yield(zero, err)
				return
			}
			offset := p.listOptions().Offset
			if first {
				asOf = page.Meta.DataAsOf
			} else if page.Meta.DataAsOf != asOf {
				yield(zero, fmt.Errorf("svc: GET %s: %w: dataAsOf was %q on the first page and is %q at offset %d; start the listing again",
					endpoint, ErrSnapshotMoved, asOf, page.Meta.DataAsOf, offset))
				return
			}
			for _, row := range page.Data {
				if !yield(row, nil) {
					return
				}
			}
			next := page.Meta.NextOffset
			if next == nil {
				return
			}
			if *next <= offset {
				yield(zero, fmt.Errorf("svc: GET %s: the server returned nextOffset %d at offset %d; stopping to avoid a loop",
					endpoint, *next, offset))
				return
			}
			p.listOptions().Offset = *next
		}
	}
}

// copyOrZero returns a pointer to a copy of *p, or to a zero O when p is nil.
func copyOrZero[O any](p *O) *O {
	o := new(O)
	if p != nil {
		*o = *p
	}
	return o
}
