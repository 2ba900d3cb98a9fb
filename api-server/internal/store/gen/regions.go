package main

// Regions: the parts of hand-written files that follow from package schema,
// rewritten in place between two marker lines (-target regions):
//
//   - in the read statements (store/queries/*/*.sql), a resource's column
//     list, after the line
//     "-- generated: <Resource> columns [of <alias>] (…)" and up to the
//     line "-- end"; with the shape joined
//     ("-- generated: <Resource> joined columns of <alias>"), the same
//     columns taken again from a left-joined subquery (joinedColumn);
//   - in the import's statements (snapshot/queries/*/*.sql), the part of a
//     column list that holds the document's declared fields (Doc, Check not
//     Hand: the fields insight_gen.go stages between the identity columns
//     and the rest), after the line
//     "-- generated: <Resource> <shape> columns [of <alias>] (…)" and up to
//     the line "-- end", in one of four shapes (mergeShapes): insert (the
//     INSERT's columns), select (the SELECT's values from the staging
//     table, decimals cast to numeric on PostgreSQL), set (ON CONFLICT's
//     "col = excluded.col") and compare (a tuple of IS DISTINCT FROM,
//     decimals compared as text on PostgreSQL). Each ends with a comma:
//     the columns that are not declared fields (ids, the account's copies,
//     updated_at) are written by hand around the region;
//   - in openapi.yaml, the resources' schemas (AccountRef, Account,
//     Campaign, Insight), after the line "# generated: resources (…)" and
//     up to the line "# end";
//   - in openapi.yaml's examples, each object of a resource after the line
//     "# generated: <Resource> example (…)" and up to the line "# end":
//     its hand-written values in the schema's order, a nullable field it
//     lacks as null (exampleObject, examples.go).
//
// Everything else in those files is hand-written.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/adsnap/svc/api-server/internal/store/schema"
)

var (
	sqlMarker     = regexp.MustCompile(`^(\s*)-- generated: (\w+) (?:(joined|insert|select|set|compare) )?columns(?: of (\w+))?\b`)
	sqlEnd        = regexp.MustCompile(`^\s*-- end\b`)
	yamlMarker    = regexp.MustCompile(`^(\s*)# generated: resources\b`)
	yamlEnd       = regexp.MustCompile(`^\s*# end\b`)
	exampleMarker = regexp.MustCompile(`^(\s*)# generated: (\w+) example\b`)
)

// regionFiles are the files with regions, relative to store's directory:
// the statements of store and snapshot, and openapi.yaml.
func regionFiles() ([]string, error) {
	var files []string
	for _, dir := range []string{".", filepath.Join("..", "snapshot")} {
		sqls, err := filepath.Glob(filepath.Join(dir, "queries", "*", "*.sql"))
		if err != nil {
			return nil, err
		}
		files = append(files, sqls...)
	}
	return append(files, filepath.Join("..", "..", "openapi.yaml")), nil
}

// Regions rewrites the regions of every file (or, with check, only lists
// the files whose regions are stale) and returns the files it changed or
// would change.
func Regions(check bool) ([]string, error) {
	files, err := regionFiles()
	if err != nil {
		return nil, err
	}
	var stale []string
	for _, f := range files {
		old, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var out []byte
		if strings.HasSuffix(f, ".yaml") {
			out, err = rewrite(old, yamlMarker, yamlEnd, openAPISchemas)
			if err == nil {
				out, err = rewrite(out, exampleMarker, yamlEnd, exampleObject)
			}
		} else {
			out, err = rewrite(old, sqlMarker, sqlEnd, sqlColumns(filepath.Base(filepath.Dir(f))))
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if bytes.Equal(out, old) {
			continue
		}
		stale = append(stale, f)
		if !check {
			if err := os.WriteFile(f, out, 0o644); err != nil {
				return nil, err
			}
		}
	}
	return stale, nil
}

// rewrite replaces the lines between each start marker and its end marker
// with what fill returns for the marker's submatches and those lines.
func rewrite(src []byte, start, end *regexp.Regexp, fill func(m []string, old string) (string, error)) ([]byte, error) {
	lines := strings.SplitAfter(string(src), "\n")
	var b strings.Builder
	for i := 0; i < len(lines); i++ {
		b.WriteString(lines[i])
		m := start.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		j := i + 1
		for j < len(lines) && !end.MatchString(lines[j]) {
			j++
		}
		if j == len(lines) {
			return nil, fmt.Errorf("line %d: no end marker", i+1)
		}
		text, err := fill(m, strings.Join(lines[i+1:j], ""))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		b.WriteString(text)
		b.WriteString(lines[j])
		i = j
	}
	return []byte(b.String()), nil
}

// sqlColumns fills a statement's column list in dialect (postgres or
// sqlite): marker submatches are the indentation, the resource, the shape
// ("" for a read statement's list) and a table's alias.
func sqlColumns(dialect string) func(m []string, _ string) (string, error) {
	return func(m []string, _ string) (string, error) {
		indent, name, shape, alias := m[1], m[2], m[3], m[4]
		r, ok := resourceNamed(name)
		if !ok {
			return "", fmt.Errorf("no resource %q in store/schema", name)
		}
		if alias != "" {
			alias += "."
		}
		if shape != "" && shape != "joined" {
			return mergeColumns(dialect, indent, r, shape, alias)
		}
		var cols []string
		for _, f := range r.Fields {
			if !f.Read {
				continue
			}
			c := alias + f.Column
			switch {
			case shape == "joined":
				c = joinedColumn(dialect, c, f)
			case dialect == "postgres" && f.Type == schema.Date:
				c = fmt.Sprintf("to_char(%s, 'YYYY-MM-DD') AS %s", c, f.Column)
			case dialect == "postgres" && f.Type == schema.Decimal:
				c = fmt.Sprintf("%s::text AS %s", c, f.Column)
			}
			cols = append(cols, c)
		}
		return wrap(indent, cols, 88), nil
	}
}

// joinedColumn is a read column c of field f taken again from a subquery
// that a row may be missing from (a LEFT JOIN: the changes statements),
// whose list already cast it: as it is on PostgreSQL; on SQLite, a NOT
// NULL column reads its zero value instead of NULL (database/sql scans no
// NULL into a string or an int64), except id, whose NULL tells the
// missing row.
func joinedColumn(dialect, c string, f schema.Field) string {
	if dialect != "sqlite" || f.Null || f.Column == "id" {
		return c
	}
	zero := "''"
	if f.Type == schema.Int || f.Type == schema.Float || f.Type == schema.Bool {
		zero = "0"
	}
	return fmt.Sprintf("COALESCE(%s, %s) AS %s", c, zero, f.Column)
}

// mergeShapes write a declared field's column c (its alias, if any,
// in a) in each shape of the import's statements, in dialect.
var mergeShapes = map[string]func(dialect, a, c string, decimal bool) string{
	"insert": func(_, a, c string, _ bool) string { return a + c },
	"select": func(dialect, a, c string, decimal bool) string {
		if dialect == "postgres" && decimal {
			return "CAST(" + a + c + " AS numeric)"
		}
		return a + c
	},
	"set": func(_, a, c string, _ bool) string { return c + " = excluded." + c },
	"compare": func(dialect, a, c string, decimal bool) string {
		if dialect == "postgres" && decimal {
			return a + c + "::text"
		}
		return a + c
	},
}

// mergeColumns fills the declared fields' part of an import statement's
// column list in one shape, each line starting with indent, the last
// ending with a comma (hand-written columns follow).
func mergeColumns(dialect, indent string, r schema.Resource, shape, alias string) (string, error) {
	v, err := view(r)
	if err != nil {
		return "", err
	}
	if len(v.Checked) == 0 {
		return "", fmt.Errorf("%s declares no document fields for the import", r.Name)
	}
	var cols []string
	for _, f := range v.Checked {
		cols = append(cols, mergeShapes[shape](dialect, alias, f.Column, f.Type == schema.Decimal))
	}
	cols[len(cols)-1] += ","
	return wrap(indent, cols, 112), nil
}

// wrap joins items with ", " in lines of at most width bytes, each
// starting with indent.
func wrap(indent string, items []string, width int) string {
	var b strings.Builder
	line := indent
	for i, it := range items {
		sep := ", "
		if i == len(items)-1 {
			sep = ""
		}
		if line != indent && len(line)+len(it)+len(sep) > width {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line = indent
		}
		line += it + sep
	}
	return b.String() + line + "\n"
}

func resourceNamed(name string) (schema.Resource, bool) {
	for _, r := range schema.Resources {
		if r.Name == name {
			return r, true
		}
	}
	return schema.Resource{}, false
}
