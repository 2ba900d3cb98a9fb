// Package listing fetches the rows of a list command, one page or every
// page, and prints them as they come: the one code path the accounts,
// campaigns and insights commands share. Progress (Progress) goes to
// standard error.
package listing

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"

	svc "github.com/adsnap/svc/sdk-go"

	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
	"github.com/adsnap/svc/svc-cli/internal/iostreams"
	"github.com/adsnap/svc/svc-cli/internal/output"
)

// Source reads a listing: one page, or every row (the SDK's AllRaw, which
// goes past the offset limit or fails with svc.ErrIncomplete, never short).
type Source[T any] struct {
	// Page returns one page from the given paging options.
	Page func(ctx context.Context, opts svc.ListOptions) (*svc.Page[T], error)
	// All returns every row from the given options, each with the row as
	// the service sent it (printed unchanged by json and jsonl).
	All func(ctx context.Context, opts svc.ListOptions) iter.Seq2[svc.Row[T], error]
	// Table, when not nil, returns the table's columns for the rows read
	// (the ACCOUNT column of campaigns and insights looks up account ids
	// for the rows' platform ids); it is called once, when the table is
	// printed at the end. Nil: the spec's columns.
	Table func(ctx context.Context, rows []T) []output.Column[T]
}

// Request is what to fetch.
type Request struct {
	// List is the page size, the first offset and the account filter.
	List svc.ListOptions
	// All reads every row (100 a page unless --limit says otherwise).
	All bool
}

// Run fetches rows and prints them in format f as they are read; json and
// jsonl print each row as the service sent it. With req.All, JSON Lines,
// CSV and JSON stream row by row; a table is printed at the end. When the
// read fails half-way, the rows already read stay printed (a JSON array is
// left unterminated) and the error returned is a *cmdutil.PartialError
// naming how many rows were written. After a single page that is not the
// last, a hint on standard error says how to get more.
func Run[T any](ctx context.Context, ios *iostreams.IOStreams, req Request, f output.Format, spec output.Spec[T], prog *Progress, src Source[T]) error {
	w := output.NewWriter(ios, f, spec)
	if src.Table != nil {
		w.TableColumns = func(rows []T) []output.Column[T] { return src.Table(ctx, rows) }
	}
	if !req.All {
		page, err := src.Page(ctx, req.List)
		if err != nil {
			return err
		}
		if err := w.Begin(page.Meta); err != nil {
			return err
		}
		raw := page.RawData()
		for i, r := range page.Data {
			var rr json.RawMessage
			if i < len(raw) {
				rr = raw[i]
			}
			if err := w.Row(r, rr); err != nil {
				return err
			}
		}
		if err := w.Close(); err != nil {
			return err
		}
		if page.Meta.NextOffset != nil {
			fmt.Fprintf(ios.ErrOut, "More rows: --offset %d for the next page, or --all for every page.\n", *page.Meta.NextOffset)
		}
		return nil
	}

	prog.Start(f != output.Table)
	defer prog.Done()
	for row, err := range src.All(ctx, req.List) {
		if err != nil {
			prog.Done()
			if aerr := w.Abort(); aerr != nil {
				return aerr
			}
			return &cmdutil.PartialError{Rows: w.Rows(), JSON: f == output.JSON && w.Begun(), Err: err}
		}
		if !w.Begun() {
			prog.Clear()
			if err := w.Begin(prog.Meta()); err != nil {
				return err
			}
		}
		if err := w.Row(row.Value, row.Raw); err != nil {
			return err
		}
	}
	prog.Done()
	if err := w.Begin(prog.Meta()); err != nil {
		return err
	}
	return w.Close()
}
