package listing

import (
	"context"
	"errors"
	"iter"
	"testing"

	svc "github.com/adsnap/svc/sdk-go"
	"github.com/adsnap/svc/svc-cli/internal/iostreams"
)

// fakePages yields the pages in order, then err if not nil, and counts how
// many pages were requested.
func fakePages(pages []*svc.Page[int], err error, requested *int) Pager[int] {
	return func(context.Context, svc.ListOptions) iter.Seq2[*svc.Page[int], error] {
		return func(yield func(*svc.Page[int], error) bool) {
			for _, p := range pages {
				*requested++
				if !yield(p, nil) {
					return
				}
			}
			if err != nil {
				yield(nil, err)
			}
		}
	}
}

func TestFetch(t *testing.T) {
	t.Parallel()
	next := func(n int) *int { return &n }
	pages := []*svc.Page[int]{
		{Data: []int{1, 2}, Meta: svc.Meta{DataAsOf: "a", NextOffset: next(2)}},
		{Data: []int{3, 4}, Meta: svc.Meta{DataAsOf: "a", NextOffset: next(4)}},
		{Data: nil, Meta: svc.Meta{DataAsOf: "a"}}, // an empty final page
	}
	ios, _, _, stderr := iostreams.Test()

	requested := 0
	rows, meta, err := Fetch(t.Context(), ios, Request{}, fakePages(pages, nil, &requested))
	if err != nil || len(rows) != 2 || meta.NextOffset == nil || requested != 1 {
		t.Errorf("one page: rows %v meta %v err %v, %d pages requested", rows, meta, err, requested)
	}
	requested = 0
	rows, meta, err = Fetch(t.Context(), ios, Request{All: true}, fakePages(pages, nil, &requested))
	if err != nil || len(rows) != 4 || requested != 3 || meta.NextOffset == nil || *meta.NextOffset != 2 {
		t.Errorf("all pages: rows %v meta %v err %v, %d pages requested", rows, meta, err, requested)
	}
	if stderr.Len() != 0 {
		t.Errorf("progress off a terminal: %q", stderr)
	}

	// Progress on a terminal, cleared at the end.
	ios.SetStderrTTY(true)
	if _, _, err := Fetch(t.Context(), ios, Request{All: true}, fakePages(pages, nil, &requested)); err != nil {
		t.Fatal(err)
	}
	if want := "\rFetched 2 rows (1 pages)…\rFetched 4 rows (2 pages)…\r\x1b[K"; stderr.String() != want {
		t.Errorf("progress = %q, want %q", stderr, want)
	}

	// An error half-way (such as the SDK's moved snapshot) returns no rows.
	rows, _, err = Fetch(t.Context(), ios, Request{All: true}, fakePages(pages[:1], svc.ErrSnapshotMoved, &requested))
	if !errors.Is(err, svc.ErrSnapshotMoved) || rows != nil {
		t.Errorf("error half-way: rows %v err %v", rows, err)
	}
}
