package listing

import (
	"context"
	"errors"
	"strings"
	"testing"

	svc "github.com/adsnap/svc/sdk-go"

	"github.com/adsnap/svc/svc-cli/internal/iostreams"
)

func TestFetch(t *testing.T) {
	t.Parallel()
	next := func(n int) *int { return &n }
	pages := map[int]*svc.Page[int]{
		0: {Data: []int{1, 2}, Meta: svc.Meta{DataAsOf: "a", NextOffset: next(2)}},
		2: {Data: []int{3, 4}, Meta: svc.Meta{DataAsOf: "a", NextOffset: next(4)}},
		4: {Data: nil, Meta: svc.Meta{DataAsOf: "a"}}, // an empty final page
	}
	fetch := func(_ context.Context, o svc.ListOptions) (*svc.Page[int], error) { return pages[o.Offset], nil }
	ios, _, _, stderr := iostreams.Test()

	rows, meta, err := Fetch(t.Context(), ios, Request{}, fetch)
	if err != nil || len(rows) != 2 || meta.NextOffset == nil {
		t.Errorf("one page: %v %v %v", rows, meta, err)
	}
	rows, _, err = Fetch(t.Context(), ios, Request{All: true}, fetch)
	if err != nil || len(rows) != 4 {
		t.Errorf("all pages: %v %v", rows, err)
	}
	if stderr.Len() != 0 {
		t.Errorf("progress off a terminal: %q", stderr)
	}

	// Progress on a terminal, cleared at the end.
	ios.SetStderrTTY(true)
	if _, _, err := Fetch(t.Context(), ios, Request{All: true}, fetch); err != nil {
		t.Fatal(err)
	}
	if want := "\rFetched 2 rows (1 pages)…\rFetched 4 rows (2 pages)…\r\x1b[K"; stderr.String() != want {
		t.Errorf("progress = %q, want %q", stderr, want)
	}

	// The snapshot moves between pages.
	pages[2].Meta.DataAsOf = "b"
	if _, _, err := Fetch(t.Context(), ios, Request{All: true}, fetch); !errors.Is(err, svc.ErrSnapshotMoved) {
		t.Errorf("moved snapshot: %v", err)
	}

	// A nextOffset that does not move forward stops the loop.
	pages[2].Meta = svc.Meta{DataAsOf: "a", NextOffset: next(2)}
	if _, _, err := Fetch(t.Context(), ios, Request{All: true}, fetch); err == nil || !strings.Contains(err.Error(), "avoid a loop") {
		t.Errorf("loop: %v", err)
	}
}
