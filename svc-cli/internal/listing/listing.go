// Package listing fetches the rows of a list command, one page or every
// page, and prints them: the one code path the accounts, campaigns and
// insights commands share.
package listing

import (
	"context"
	"encoding/json"
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
	rows, _, meta, err := fetch(ctx, ios, req, pages)
	return rows, meta, err
}

// fetch is Fetch, also returning the rows as the service sent them.
func fetch[T any](ctx context.Context, ios *iostreams.IOStreams, req Request, pages Pager[T]) ([]T, []json.RawMessage, svc.Meta, error) {
	progress := req.All && ios.IsStderrTTY()
	defer func() {
		if progress {
			fmt.Fprint(ios.ErrOut, "\r\x1b[K")
		}
	}()
	var rows []T
	var raw []json.RawMessage
	var first svc.Meta
	n := 0
	for page, err := range pages(ctx, req.List) {
		if err != nil {
			return nil, nil, first, err
		}
		if n == 0 {
			first = page.Meta
		}
		n++
		rows = append(rows, page.Data...)
		raw = append(raw, page.RawData()...)
		if !req.All {
			break
		}
		if progress && page.Meta.NextOffset != nil {
			fmt.Fprintf(ios.ErrOut, "\rFetched %d rows (%d pages)…", len(rows), n)
		}
	}
	return rows, raw, first, nil
}

// Run fetches as Fetch does and prints the rows in format f; json and
// jsonl print each row as the service sent it. After a single
// page that is not the last, a hint on standard error says how to get more.
func Run[T any](ctx context.Context, ios *iostreams.IOStreams, req Request, f output.Format, spec output.Spec[T], pages Pager[T]) error {
	rows, raw, meta, err := fetch(ctx, ios, req, pages)
	if err != nil {
		return err
	}
	if (f == output.JSON || f == output.JSONL) && spec.JSON == nil && len(raw) == len(rows) {
		// What the API returned, field for field (issue #19).
		err = output.PrintRaw(ios, f, meta, raw)
	} else {
		err = output.Print(ios, f, meta, rows, spec)
	}
	if err != nil {
		return err
	}
	moreHint(ios, req, meta)
	return nil
}

// RunTable is Run for the table format, with columns built from the rows
// fetched (the ACCOUNT column of campaigns and insights looks up account
// ids for the rows' platform ids).
func RunTable[T any](ctx context.Context, ios *iostreams.IOStreams, req Request, pages Pager[T], spec func(ctx context.Context, rows []T) output.Spec[T]) error {
	rows, meta, err := Fetch(ctx, ios, req, pages)
	if err != nil {
		return err
	}
	if err := output.Print(ios, output.Table, meta, rows, spec(ctx, rows)); err != nil {
		return err
	}
	moreHint(ios, req, meta)
	return nil
}

// moreHint says, after a single page that is not the last, how to get more.
func moreHint(ios *iostreams.IOStreams, req Request, meta svc.Meta) {
	if !req.All && meta.NextOffset != nil {
		fmt.Fprintf(ios.ErrOut, "More rows: --offset %d for the next page, or --all for every page.\n", *meta.NextOffset)
	}
}
