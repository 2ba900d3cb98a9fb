package svcmcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Results are tables. A row type (account, campaign, insight) is seen as
// flat columns named after its JSON fields, nested objects joined with a dot
// ("account.currency"). A result holds the columns asked for (fields), in
// the row type's order; a column whose value is the same in every row of
// the result is shown once, in "same", instead of in every row. The text
// content and structuredContent carry the same table: the text as one line
// a row, structuredContent as JSON arrays. Both cost far fewer tokens than
// one JSON object a row, which repeats every field name in every row.

// column is one flat field of a row type.
type column struct {
	name   string
	schema *jsonschema.Schema // the field's schema: types, format, enum, description
}

// columnsOf returns the flat columns of the object schema s, in the order of
// its properties.
func columnsOf(s *jsonschema.Schema) []column {
	var cols []column
	for _, name := range s.PropertyOrder {
		p := s.Properties[name]
		if (p.Type == "object" || slices.Contains(p.Types, "object")) && len(p.Properties) > 0 { // a nullable object too
			for _, c := range columnsOf(p) {
				cols = append(cols, column{name: name + "." + c.name, schema: c.schema})
			}
			continue
		}
		cols = append(cols, column{name: name, schema: p})
	}
	return cols
}

// rowSchema infers the schema of the row type R (properties in field
// order) and lets adjust set formats and enums.
func rowSchema[R any](adjust func(*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[R](nil)
	if err != nil {
		panic(fmt.Sprintf("svcmcp: row schema: %v", err))
	}
	if adjust != nil {
		adjust(s)
	}
	return s
}

// table is the rows of one result, flattened, projected and cleaned.
type table struct {
	columns []string
	rows    [][]any
	same    map[string]any
	// sameOrder is the order of the columns of same.
	sameOrder []string
}

// hoistFrom is the fewest rows for which constant columns move to same: with
// fewer, showing each row whole reads better and costs about as much.
const hoistFrom = 3

// newTable flattens rows into the columns named by fields (all columns of
// cols when fields is empty), cleans every string for the model (cleanText)
// and moves the columns that hold one value in every row to same.
func newTable[R any](cols []column, fields []string, rows []R) (table, error) {
	var names []string
	for _, c := range cols {
		if len(fields) == 0 || slices.Contains(fields, c.name) {
			names = append(names, c.name)
		}
	}
	t := table{same: map[string]any{}, rows: make([][]any, len(rows))}
	for i, r := range rows {
		flat, err := flatten(r)
		if err != nil {
			return table{}, err
		}
		row := make([]any, len(names))
		for j, n := range names {
			row[j] = flat[n]
		}
		t.rows[i] = row
	}
	constant := make([]bool, len(names))
	if len(rows) >= hoistFrom {
		for j := range names {
			constant[j] = true
			for _, row := range t.rows[1:] {
				if !sameValue(row[j], t.rows[0][j]) {
					constant[j] = false
					break
				}
			}
		}
	}
	for j, n := range names {
		if constant[j] {
			t.same[n] = t.rows[0][j]
			t.sameOrder = append(t.sameOrder, n)
		} else {
			t.columns = append(t.columns, n)
		}
	}
	for i, row := range t.rows {
		kept := make([]any, 0, len(t.columns))
		for j, v := range row {
			if !constant[j] {
				kept = append(kept, v)
			}
		}
		t.rows[i] = kept
	}
	return t, nil
}

// flatten returns the JSON fields of r by flat column name, numbers as
// json.Number (as written), strings cleaned with cleanText.
func flatten(r any) (map[string]any, error) {
	raw, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encoding a row: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("decoding a row: %w", err)
	}
	out := map[string]any{}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			switch v := v.(type) {
			case map[string]any:
				walk(prefix+k+".", v)
			case string:
				out[prefix+k] = cleanText(v)
			default:
				out[prefix+k] = v
			}
		}
	}
	walk("", m)
	return out, nil
}

func sameValue(a, b any) bool {
	return reflect.TypeOf(a) == reflect.TypeOf(b) && a == b
}

// text writes the table for a model that reads only text: the constant
// columns on one line, then a header line and one line a row, the cells
// separated by tabs (no cleaned value holds a tab or a line break). A cell
// is the value as written in JSON, strings without quotes; null is null;
// a string that is empty, is "null" or starts with a quote is written as a
// JSON string, so that every cell reads back as exactly one value.
func (t table) text(b *strings.Builder) {
	if len(t.sameOrder) > 0 {
		b.WriteString("Same in every row:")
		for i, n := range t.sameOrder {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(" ")
			b.WriteString(n)
			b.WriteByte('=')
			b.WriteString(cell(t.same[n]))
		}
		b.WriteByte('\n')
	}
	if len(t.rows) == 0 {
		return
	}
	b.WriteString(strings.Join(t.columns, "\t"))
	for _, row := range t.rows {
		b.WriteByte('\n')
		for j, v := range row {
			if j > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(cell(v))
		}
	}
}

// cell is one value as the text shows it.
func cell(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		if v == "" || v == "null" || strings.HasPrefix(v, `"`) {
			q, _ := json.Marshal(v)
			return string(q)
		}
		return v
	case json.Number:
		return v.String()
	case bool:
		if v {
			return "true"
		}
		return "false"
	}
	return fmt.Sprint(v)
}

// cellBytes estimates what a row costs in both channels, in bytes, for the
// row budget of calls without limit: each value once in the text and once
// in structuredContent, with its separators and quotes.
func cellBytes(r any) int {
	flat, err := flatten(r)
	if err != nil {
		return 0
	}
	n := 0
	for _, v := range flat {
		n += 2 * (len(cell(v)) + 3)
	}
	return n
}
