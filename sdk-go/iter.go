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

// pages iterates over the pages of endpoint, following meta.nextOffset
// until it is null: the one paging loop of the package. opts is copied when
// pages is called, so the caller may reuse it, and every range over the
// result starts again from opts.Offset. The first error is yielded once,
// with a nil page, and ends the iteration; so does a change of
// meta.dataAsOf between pages (ErrSnapshotMoved), or a nextOffset that does
// not move forward.
func pages[T, O any, P interface {
	*O
	lister
}](ctx context.Context, c *Client, endpoint string, opts *O) iter.Seq2[*Page[T], error] {
	start := copyOrZero(opts)
	return func(yield func(*Page[T], error) bool) {
		cur := *start
		p := P(&cur)
		var asOf string
		for first := true; ; first = false {
			page, err := list[T](ctx, c, endpoint, p)
			if err != nil {
				yield(nil, err)
				return
			}
			offset := p.listOptions().Offset
			if first {
				asOf = page.Meta.DataAsOf
			} else if page.Meta.DataAsOf != asOf {
				yield(nil, fmt.Errorf("svc: GET %s: %w: dataAsOf was %q on the first page and is %q at offset %d; start the listing again",
					endpoint, ErrSnapshotMoved, asOf, page.Meta.DataAsOf, offset))
				return
			}
			if !yield(page, nil) {
				return
			}
			next := page.Meta.NextOffset
			if next == nil {
				return
			}
			if *next <= offset {
				yield(nil, fmt.Errorf("svc: GET %s: the server returned nextOffset %d at offset %d; stopping to avoid a loop",
					endpoint, *next, offset))
				return
			}
			p.listOptions().Offset = *next
		}
	}
}

// all iterates over every row of endpoint, page after page (see pages). The
// first error is yielded once, with a zero T, and ends the iteration.
func all[T, O any, P interface {
	*O
	lister
}](ctx context.Context, c *Client, endpoint string, opts *O) iter.Seq2[T, error] {
	seq := pages[T, O, P](ctx, c, endpoint, opts) // copies opts now
	return func(yield func(T, error) bool) {
		for page, err := range seq {
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, row := range page.Data {
				if !yield(row, nil) {
					return
				}
			}
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
