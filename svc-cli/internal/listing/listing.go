// Package listing fetches the rows of a list command, one page or every
// page, and prints them: the one code path the accounts, campaigns and
// insights commands share.
package listing

import (
	"context"
	"fmt"

	svc "github.com/adsnap/svc/sdk-go"

	"github.com/adsnap/svc/svc-cli/internal/iostreams"
	"github.com/adsnap/svc/svc-cli/internal/output"
)

// PageFunc fetches one page with the given paging options.
type PageFunc[T any] func(ctx context.Context, opts svc.ListOptions) (*svc.Page[T], error)

// Request is what to fetch.
type Request struct {
	// List is the page size, the first offset and the account filter.
	List svc.ListOptions
	// All follows meta.nextOffset until the last page.
	All bool
}

// Fetch returns the rows of one page, or of every page with req.All, and
// the meta of the first page. With req.All it reports progress on standard
// error when that is a terminal, and it stops with an error wrapping
// svc.ErrSnapshotMoved if the snapshot changes between pages.
//
// Every page is read before anything is printed, so that a failure half-way
// prints no partial listing (at most 10 100 rows: offsets end at 10 000).
func Fetch[T any](ctx context.Context, ios *iostreams.IOStreams, req Request, fetch PageFunc[T]) ([]T, svc.Meta, error) {
	opts := req.List
	page, err := fetch(ctx, opts)
	if err != nil {
		return nil, svc.Meta{}, err
	}
	first := page.Meta
	rows := append([]T(nil), page.Data...)
	if !req.All {
		return rows, first, nil
	}
	progress := ios.IsStderrTTY()
	defer func() {
		if progress {
			fmt.Fprint(ios.ErrOut, "\r\x1b[K")
		}
	}()
	for pages := 1; page.Meta.NextOffset != nil; pages++ {
		if progress {
			fmt.Fprintf(ios.ErrOut, "\rFetched %d rows (%d pages)…", len(rows), pages)
		}
		next := *page.Meta.NextOffset
		if next <= opts.Offset {
			return nil, first, fmt.Errorf("the service returned nextOffset %d at offset %d; stopping to avoid a loop", next, opts.Offset)
		}
		opts.Offset = next
		if page, err = fetch(ctx, opts); err != nil {
			return nil, first, err
		}
		if page.Meta.DataAsOf != first.DataAsOf {
			return nil, first, fmt.Errorf("%w: dataAsOf was %q on the first page and is %q at offset %d; run the command again",
				svc.ErrSnapshotMoved, first.DataAsOf, page.Meta.DataAsOf, opts.Offset)
		}
		rows = append(rows, page.Data...)
	}
	return rows, first, nil
}

// Run fetches as Fetch does and prints the rows in format f. After a single
// page that is not the last, a hint on standard error says how to get more.
func Run[T any](ctx context.Context, ios *iostreams.IOStreams, req Request, f output.Format, spec output.Spec[T], fetch PageFunc[T]) error {
	rows, meta, err := Fetch(ctx, ios, req, fetch)
	if err != nil {
		return err
	}
	if err := output.Print(ios, f, meta, rows, spec); err != nil {
		return err
	}
	if !req.All && meta.NextOffset != nil {
		fmt.Fprintf(ios.ErrOut, "More rows: --offset %d for the next page, or --all for every page.\n", *meta.NextOffset)
	}
	return nil
}
