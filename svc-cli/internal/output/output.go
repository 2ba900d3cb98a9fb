// Package output writes the rows of the list commands as a table, JSON,
// JSON Lines or CSV. One generic mechanism serves every row type: a command
// describes its columns once in a Spec and calls Print.
package output

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mattn/go-runewidth"

	svc "github.com/adsnap/svc/sdk-go"

	"github.com/adsnap/svc/svc-cli/internal/iostreams"
)

// Format is an output format.
type Format string

// The output formats.
const (
	// Table is aligned columns for people: money with its currency,
	// "n/a" for unavailable purchase data, names made safe for terminals.
	Table Format = "table"
	// JSON is one JSON array of every row printed.
	JSON Format = "json"
	// JSONL is one JSON object per line.
	JSONL Format = "jsonl"
	// CSV is RFC 4180 CSV with a header line; money is the plain decimal
	// with a currency column, and null is an empty field. A cell that a
	// spreadsheet would run as a formula gets a leading ' (CSVCell).
	CSV Format = "csv"
)

// Formats lists the formats -o accepts.
var Formats = []Format{Table, JSON, JSONL, CSV}

// ParseFormat returns the format named by s; an empty s means a table when
// standard output is a terminal and JSON otherwise.
func ParseFormat(s string, stdoutTTY bool) (Format, error) {
	if s == "" {
		if stdoutTTY {
			return Table, nil
		}
		return JSON, nil
	}
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown output format %q: use table, json, jsonl or csv", s)
}

// Column is one column of a table or of CSV.
type Column[T any] struct {
	// Header is the column's title.
	Header string
	// Value returns the cell of a row.
	Value func(T) string
	// Right aligns the column to the right in tables (numbers).
	Right bool
}

// Spec describes how rows of type T are printed.
type Spec[T any] struct {
	// Table are the columns of the table format.
	Table []Column[T]
	// CSV are the columns of the CSV format.
	CSV []Column[T]
	// JSON returns the value encoded for a row in the json and jsonl
	// formats; nil means the row itself.
	JSON func(T) any
}

// Print writes rows in format f. The provenance line (stored snapshot,
// dataAsOf of meta) comes first: on standard output before a table, on
// standard error for the machine formats, so that standard output holds
// only data.
func Print[T any](ios *iostreams.IOStreams, f Format, meta svc.Meta, rows []T, spec Spec[T]) error {
	prov := Provenance(meta)
	if f == Table {
		if _, err := fmt.Fprintln(ios.Out, prov); err != nil {
			return err
		}
		return writeTable(ios.Out, rows, spec.Table, ios.ColorEnabled())
	}
	fmt.Fprintln(ios.ErrOut, prov)
	switch f {
	case JSON:
		vals := make([]any, len(rows))
		for i, r := range rows {
			vals[i] = jsonValue(spec, r)
		}
		enc := json.NewEncoder(ios.Out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(vals)
	case JSONL:
		enc := json.NewEncoder(ios.Out)
		enc.SetEscapeHTML(false)
		for _, r := range rows {
			if err := enc.Encode(jsonValue(spec, r)); err != nil {
				return err
			}
		}
		return nil
	case CSV:
		// Cells a spreadsheet would run as formulas get a leading '
		// everywhere; terminals also get the same escaping as tables.
		return writeCSV(ios.Out, rows, spec.CSV, ios.IsStdoutTTY())
	}
	return fmt.Errorf("unknown output format %q", f)
}

func jsonValue[T any](spec Spec[T], r T) any {
	if spec.JSON != nil {
		return spec.JSON(r)
	}
	return r
}

// Provenance is the line that says where the data comes from, such as
// "Stored snapshot (not live) · data as of 2026-11-20T06:00:00Z".
func Provenance(meta svc.Meta) string {
	asOf := Sanitize(meta.DataAsOf)
	if asOf == "" {
		asOf = "unknown"
	}
	return "Stored snapshot (not live) · data as of " + asOf
}

func writeTable[T any](w io.Writer, rows []T, cols []Column[T], color bool) error {
	cells := make([][]string, len(rows))
	widths := make([]int, len(cols))
	for j, c := range cols {
		widths[j] = runewidth.StringWidth(c.Header)
	}
	for i, r := range rows {
		cells[i] = make([]string, len(cols))
		for j, c := range cols {
			v := Sanitize(c.Value(r))
			cells[i][j] = v
			widths[j] = max(widths[j], runewidth.StringWidth(v))
		}
	}
	var b strings.Builder
	line := func(vals []string, header bool) {
		for j, v := range vals {
			pad := widths[j] - runewidth.StringWidth(v)
			last := j == len(vals)-1
			if j > 0 {
				b.WriteString("  ")
			}
			if cols[j].Right {
				b.WriteString(strings.Repeat(" ", pad))
			}
			if header && color {
				b.WriteString("\x1b[1m" + v + "\x1b[0m")
			} else {
				b.WriteString(v)
			}
			if !cols[j].Right && !last {
				b.WriteString(strings.Repeat(" ", pad))
			}
		}
		b.WriteString("\n")
	}
	headers := make([]string, len(cols))
	for j, c := range cols {
		headers[j] = c.Header
	}
	line(headers, true)
	for _, r := range cells {
		line(r, false)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// csvValue is a CSV cell of v: made safe for spreadsheets (CSVCell), and
// for the terminal when sanitize is set.
func csvValue(v string, sanitize bool) string {
	v = CSVCell(v)
	if sanitize {
		v = Sanitize(v)
	}
	return v
}

func writeCSV[T any](w io.Writer, rows []T, cols []Column[T], sanitize bool) error {
	cw := csv.NewWriter(w)
	rec := make([]string, len(cols))
	for j, c := range cols {
		rec[j] = c.Header
	}
	if err := cw.Write(rec); err != nil {
		return err
	}
	for _, r := range rows {
		for j, c := range cols {
			rec[j] = csvValue(c.Value(r), sanitize)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
