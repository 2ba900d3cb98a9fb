package output

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"

	svc "github.com/adsnap/svc/sdk-go"

	"github.com/adsnap/svc/svc-cli/internal/iostreams"
)

// Writer prints rows as they are read: JSON Lines, CSV and JSON are written
// row by row (so a bulk read of any size streams in constant memory), a
// table is kept until Close, since its columns are as wide as their widest
// cell. The output is the same as Print's for the same rows, except that
// JSON and JSON Lines print a row given as the service sent it unchanged.
type Writer[T any] struct {
	// TableColumns, when not nil, gives the table's columns for the rows
	// kept, when the table is printed (instead of the spec's).
	TableColumns func(rows []T) []Column[T]

	ios    *iostreams.IOStreams
	f      Format
	spec   Spec[T]
	begun  bool
	n      int
	table  []T
	csv    *csv.Writer
	buf    bytes.Buffer
	enc    *json.Encoder
	closed bool
}

// NewWriter returns a writer of rows in format f.
func NewWriter[T any](ios *iostreams.IOStreams, f Format, spec Spec[T]) *Writer[T] {
	w := &Writer[T]{ios: ios, f: f, spec: spec}
	w.enc = json.NewEncoder(&w.buf)
	w.enc.SetEscapeHTML(false)
	if f == JSON {
		w.enc.SetIndent("  ", "  ")
	}
	return w
}

// Begun reports whether Begin was called.
func (w *Writer[T]) Begun() bool { return w.begun }

// Rows returns how many rows were written (or kept, for a table).
func (w *Writer[T]) Rows() int { return w.n }

// Begin writes the provenance line of meta (on standard output before a
// table, on standard error otherwise) and the CSV header.
func (w *Writer[T]) Begin(meta svc.Meta) error {
	if w.begun {
		return nil
	}
	w.begun = true
	prov := Provenance(meta)
	if w.f == Table {
		_, err := fmt.Fprintln(w.ios.Out, prov)
		return err
	}
	fmt.Fprintln(w.ios.ErrOut, prov)
	switch w.f {
	case CSV:
		w.csv = csv.NewWriter(w.ios.Out)
		rec := make([]string, len(w.spec.CSV))
		for j, c := range w.spec.CSV {
			rec[j] = c.Header
		}
		return w.csv.Write(rec)
	case JSON, JSONL:
		return nil
	}
	return fmt.Errorf("unknown output format %q", w.f)
}

// Row writes one row (a table keeps it until Close). raw, when not nil, is
// the row as the service sent it: JSON and JSON Lines print it (only the
// whitespace changes), so that every field keeps the API's own form (an
// insight's date stays the date-time the API returned), unless the spec
// has a JSON form of its own.
func (w *Writer[T]) Row(r T, raw json.RawMessage) error {
	w.n++
	switch w.f {
	case Table:
		w.table = append(w.table, r)
		return nil
	case CSV:
		rec := make([]string, len(w.spec.CSV))
		for j, c := range w.spec.CSV {
			rec[j] = csvValue(c.Value(r), w.ios.IsStdoutTTY())
		}
		if err := w.csv.Write(rec); err != nil {
			return err
		}
		// Flush each row: a reader of the pipe sees rows as they come, and a
		// failure later leaves every row read on standard output.
		w.csv.Flush()
		return w.csv.Error()
	}
	w.buf.Reset()
	v := jsonValue(w.spec, r)
	if raw != nil && w.spec.JSON == nil {
		v = raw
	}
	if err := w.enc.Encode(v); err != nil {
		return err
	}
	if w.f == JSON {
		sep := ",\n  "
		if w.n == 1 {
			sep = "[\n  "
		}
		w.buf.Truncate(w.buf.Len() - 1) // the encoder's newline
		if _, err := io.WriteString(w.ios.Out, sep); err != nil {
			return err
		}
	}
	_, err := w.ios.Out.Write(w.buf.Bytes())
	return err
}

// Close ends a complete listing: the table is printed, the JSON array
// closed.
func (w *Writer[T]) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	switch w.f {
	case Table:
		return w.writeTable()
	case JSON:
		end := "\n]\n"
		if w.n == 0 {
			end = "[]\n"
		}
		_, err := io.WriteString(w.ios.Out, end)
		return err
	case CSV:
		w.csv.Flush()
		return w.csv.Error()
	}
	return nil
}

// Abort ends an incomplete listing after a failure: the rows read so far
// stay written (a table prints them), but a JSON array is left unterminated,
// so that no JSON reader can take the partial output for a complete one.
func (w *Writer[T]) Abort() error {
	if w.closed || !w.begun {
		return nil
	}
	w.closed = true
	switch w.f {
	case Table:
		return w.writeTable()
	case CSV:
		w.csv.Flush()
		return w.csv.Error()
	}
	return nil
}

// writeTable prints the rows kept as a table.
func (w *Writer[T]) writeTable() error {
	cols := w.spec.Table
	if w.TableColumns != nil {
		cols = w.TableColumns(w.table)
	}
	return writeTable(w.ios.Out, w.table, cols, w.ios.ColorEnabled())
}
