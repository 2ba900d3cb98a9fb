// Package listing fetches the rows of a list command, one page or every
// page, and prints them: the one code path the accounts, campaigns and
// insights commands share.
package listing

import (
	"context"
	"fmt"
	"iter"

	svc "github.com/adsnap/svc/sdk-go"

	"github.com/adsnap/svc/svc-cli/internal/iostreams"
	"github.com/adsnap/svc/svc-cli/internal/output"
)

// Pager returns the pages of a listing from the given paging options: one
// of the SDK's Pages methods, with the command's other options bound.
type Pager[T any] func(ctx context.Context, opts svc.ListOptions) iter.Seq2[*svc.Page[T], error]

// Request is what to fetch.
type Request struct {
	// List is the page size, the first offset and the account filter.
	List svc.ListOptions
	// All follows meta.nextOffset until the last page.
	All bool
}

// Fetch returns the rows of one page, or of every page with req.All, and
// the meta of the first page. With req.All it reports progress on standard
// error when that is a terminal; paging, the moved-snapshot check
// (svc.ErrSnapshotMoved) and the loop guard are the SDK's.
//
// Every page is read before anything is printed, so that a failure half-way
// prints no partial listing (at most 10 100 rows: offsets end at 10 000).
func Fetch[T any](ctx context.Context, ios *iostreams.IOStreams, req Request, pages Pager[T]) ([]T, svc.Meta, error) {
	progress := req.All && ios.IsStderrTTY()
	defer func() {
		if progress {
			fmt.Fprint(ios.ErrOut, "\r\x1b[K")
		}
	}()
	var rows []T
	var first svc.Meta
	n := 0
	for page, err := range pages(ctx, req.List) {
		if err != nil {
			return nil, first, err
		}
		if n == 0 {
			first = page.Meta
		}
		n++
		rows = append(rows, page.Data...)
		if !req.All {
			break
		}
		if progress && page.Meta.NextOffset != nil {
			fmt.Fprintf(ios.ErrOut, "\rFetched %d rows (%d pages)…", len(rows), n)
		}
	}
	return rows, first, nil
}

// Run fetches as Fetch does and prints the rows in format f. After a single
// page that is not the last, a hint on standard error says how to get more.
func Run[T any](ctx context.Context, ios *iostreams.IOStreams, req Request, f output.Format, spec output.Spec[T], pages Pager[T]) error {
	rows, meta, err := Fetch(ctx, ios, req, pages)
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
