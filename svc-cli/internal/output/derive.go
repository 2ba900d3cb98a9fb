package output

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// CSVColumns returns cols followed by a column for every JSON field of T
// (a struct type of the SDK) that no column of cols is headed by, in the
// order of T's fields, so that a field the SDK gains reaches CSV without a
// change in the command. A field that is a struct (an object on the wire,
// such as Insight.Account) counts by its own fields. The derived cells are
// the plain forms of the values (null is an empty field), as the
// hand-written ones are.
func CSVColumns[T any](cols []Column[T]) []Column[T] {
	listed := map[string]bool{}
	for _, c := range cols {
		listed[c.Header] = true
	}
	var rec func(t reflect.Type, index []int)
	rec = func(t reflect.Type, index []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" || name == "" {
				continue
			}
			idx := append(append([]int(nil), index...), i)
			if f.Type.Kind() == reflect.Struct && !isValue(f.Type) {
				rec(f.Type, idx)
				continue
			}
			if listed[name] {
				continue
			}
			listed[name] = true
			cols = append(cols, Column[T]{Header: name, Value: func(row T) string {
				return plainCell(reflect.ValueOf(row).FieldByIndex(idx))
			}})
		}
	}
	rec(reflect.TypeFor[T](), nil)
	return cols
}

// isValue reports whether a struct type is one value on the wire (a time,
// a date: it has a String method), not an object of fields.
func isValue(t reflect.Type) bool {
	return t.Implements(reflect.TypeFor[fmt.Stringer]())
}

// plainCell is a value's CSV cell: "" for nil, times in RFC 3339 (UTC),
// numbers in their shortest exact form, a Stringer's text.
func plainCell(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	switch x := v.Interface().(type) {
	case time.Time:
		return x.UTC().Format(time.RFC3339)
	case fmt.Stringer:
		return x.String()
	}
	switch v.Kind() {
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return Int(v.Int())
	case reflect.Float32, reflect.Float64:
		return Number(v.Float())
	}
	return fmt.Sprint(v.Interface())
}
