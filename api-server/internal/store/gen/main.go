// Command gen writes the code that follows from the resource declarations
// of package schema: run by `go generate` in store (-target store) and in
// snapshot (-target snapshot). Its output is committed; TestGenerated (in
// store) fails when it is stale.
//
// For store it writes, per resource, the row struct, its pooled page, its
// decoder from pgx's raw values, its database/sql scan and its JSON
// encoder: the code that reads and writes rows, never a statement (the
// statements are the files of store/queries/; TestQueries checks that
// their columns are the ones these decoders read). For snapshot it writes
// the document's insight struct, its validation and the import's column
// lists. With -target regions it rewrites, in place, the parts of
// hand-written files that follow from schema (regions.go): the read
// statements' column lists, the import statements' lists of the insight's
// declared fields (snapshot/queries), openapi.yaml's resource schemas and
// the keys of its examples' resource objects.
//
//	go run ./gen -target store -o resources_gen.go
//	go run ./gen -target regions [-check]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
	"strings"
	"text/template"

	"github.com/adsnap/svc/api-server/internal/store/schema"
)

func main() {
	target := flag.String("target", "store", "store, snapshot or regions")
	out := flag.String("o", "", "output file")
	check := flag.Bool("check", false, "regions: list the stale files, write nothing, exit 1 if any")
	flag.Parse()
	if *target == "regions" {
		stale, err := Regions(*check)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		if *check && len(stale) > 0 {
			fmt.Fprintln(os.Stderr, "gen: stale, run go generate ./internal/store/:", strings.Join(stale, " "))
			os.Exit(1)
		}
		return
	}
	src, err := Generate(*target)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// Generate returns the formatted source of one target.
func Generate(target string) ([]byte, error) {
	var t *template.Template
	data := map[string]any{}
	switch target {
	case "store":
		t = storeTmpl
		var rs []*resource
		for _, r := range schema.Resources {
			v, err := view(r)
			if err != nil {
				return nil, err
			}
			rs = append(rs, v)
		}
		data["Resources"] = rs
	case "snapshot":
		t = snapshotTmpl
		v, err := view(schema.Insight)
		if err != nil {
			return nil, err
		}
		data["R"] = v
	default:
		return nil, fmt.Errorf("unknown target %q", target)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return nil, err
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%w\n%s", err, b.Bytes())
	}
	return src, nil
}

// resource is a schema.Resource with what the templates need computed.
type resource struct {
	schema.Resource
	Plural  string
	Read    []field // the fields the read statements select, in order
	Doc     []field // the document's fields
	Checked []field // the document fields the generated validation checks
}

type field struct {
	schema.Field
	Index   int    // column index in the read statements (after the leading meta columns)
	RowType string // Go type in the row struct
	DocType string // Go type in the document struct
	Decode  string // pgx raw decoder call
	Encode  string // JSON append call
	Key     string // the JSON text before the value
	Close   string // the JSON text after the value ("}" closing a group)
	Stage   string // PostgreSQL type of the staging column
}

func view(r schema.Resource) (*resource, error) {
	v := &resource{Resource: r, Plural: r.Name + "s"}
	group := ""
	for _, f := range r.Fields {
		x := field{Field: f}
		var err error
		if x.DocType, x.Stage, err = docType(f); err != nil {
			return nil, fmt.Errorf("%s.%s: %w", r.Name, f.Go, err)
		}
		if f.Doc {
			v.Doc = append(v.Doc, x)
			if f.Check != schema.Hand {
				v.Checked = append(v.Checked, x)
			}
		}
		if !f.Read {
			continue
		}
		x.Index = len(v.Read)
		if x.RowType, x.Decode, x.Encode, err = rowType(f, x.Index); err != nil {
			return nil, fmt.Errorf("%s.%s: %w", r.Name, f.Go, err)
		}
		sep := ","
		if len(v.Read) == 0 {
			sep = "{"
		}
		switch {
		case f.Group != group && group != "" && f.Group != "":
			x.Key = `},"` + f.Group + `":{"` + f.JSON + `":`
		case f.Group != group && group != "":
			x.Key = `},"` + f.JSON + `":`
		case f.Group != group:
			x.Key = sep + `"` + f.Group + `":{"` + f.JSON + `":`
		default:
			x.Key = sep + `"` + f.JSON + `":`
		}
		group = f.Group
		if f.Measured {
			if r.Measurement == "" {
				return nil, fmt.Errorf("%s.%s: Measured without the resource's Measurement", r.Name, f.Go)
			}
			x.Encode = fmt.Sprintf("if r.%s != %q { %s } else { a.Null() }", r.Measurement, r.Unmeasured, x.Encode)
		}
		v.Read = append(v.Read, x)
	}
	if len(v.Read) > 0 {
		last := &v.Read[len(v.Read)-1]
		last.Close = "}"
		if group != "" {
			last.Close = "}}"
		}
	}
	return v, nil
}

// rowType returns a read field's row type, decoder and encoder calls.
func rowType(f schema.Field, i int) (typ, dec, enc string, err error) {
	n := "r." + f.Go
	switch {
	case (f.Type == schema.Text || f.Type == schema.Decimal) && f.Null:
		return "sql.NullString", fmt.Sprintf("d.nullStr(%d)", i), fmt.Sprintf("a.NullStr(%s.String, %s.Valid)", n, n), nil
	case f.Type == schema.Text || f.Type == schema.Decimal:
		return "string", fmt.Sprintf("d.str(%d)", i), fmt.Sprintf("a.Str(%s)", n), nil
	case f.Type == schema.Date && !f.Null:
		return "string", fmt.Sprintf("d.str(%d)", i), fmt.Sprintf("a.Day(%s)", n), nil
	case f.Type == schema.Int && f.Null:
		return "sql.NullInt64", fmt.Sprintf("d.nullInt8(%d)", i), fmt.Sprintf("a.NullInt(%s.Int64, %s.Valid)", n, n), nil
	case f.Type == schema.Int:
		return "int64", fmt.Sprintf("d.int8(%d)", i), fmt.Sprintf("a.Int(%s)", n), nil
	case f.Type == schema.Float && f.Null:
		return "sql.NullFloat64", fmt.Sprintf("d.float8(%d)", i), fmt.Sprintf("a.NullFloat(%s.Float64, %s.Valid)", n, n), nil
	case f.Type == schema.Bool && !f.Null:
		return "bool", fmt.Sprintf("d.bool(%d)", i), fmt.Sprintf("a.Bool(%s)", n), nil
	case f.Type == schema.Time && f.Null:
		return "NullTime", fmt.Sprintf("d.time(%d)", i), fmt.Sprintf("a.Time(%s.Time, %s.Valid)", n, n), nil
	}
	return "", "", "", fmt.Errorf("no read form for type %d (null %v)", f.Type, f.Null)
}

// docType returns a document field's Go type and its staging column type.
// Required counts are pointers, so that a missing one is told from 0.
func docType(f schema.Field) (typ, stage string, err error) {
	switch f.Type {
	case schema.Text, schema.Decimal, schema.Date:
		if f.Null {
			return "*string", "text", nil
		}
		return "string", "text", nil
	case schema.Int:
		return "*int64", "bigint", nil
	case schema.Float:
		return "*float64", "double precision", nil
	case schema.Bool:
		return "*bool", "boolean", nil
	case schema.Time:
		return "*string", "timestamptz", nil
	case schema.JSON:
		return "json.RawMessage", "jsonb", nil
	}
	return "", "", fmt.Errorf("no document form for type %d", f.Type)
}

var funcs = template.FuncMap{
	"bq":    func(s string) string { return "`" + s + "`" },
	"lower": strings.ToLower,
	"join":  strings.Join,
	"quote": func(s string) string { return fmt.Sprintf("%q", s) },
	"enum": func(vs []string) string {
		q := make([]string, len(vs))
		for i, v := range vs {
			q[i] = fmt.Sprintf("%q", v)
		}
		return strings.Join(q, ", ")
	},
	"isDecimal": func(f field) bool { return f.Type == schema.Decimal },
}

var storeTmpl = template.Must(template.New("store").Funcs(funcs).Parse(`// Code generated by store/gen from store/schema; DO NOT EDIT.

package store

import (
	"database/sql"
	"sync"

	"github.com/adsnap/svc/api-server/internal/wirejson"
	"github.com/jackc/pgx/v5/pgconn"
)

{{range $r := .Resources}}
// {{$r.Name}}Row is what the {{lower $r.Plural}} statements read.
type {{$r.Name}}Row struct {
{{- range $r.Read}}
	{{.Go}} {{.RowType}}
{{- end}}
}

// {{$r.Name}}Page is a page of {{lower $r.Plural}}.
type {{$r.Name}}Page = Page[{{$r.Name}}Row]

var {{lower $r.Name}}Pages = sync.Pool{New: func() any { return &Page[{{$r.Name}}Row]{} }}

// {{lower $r.Name}}Codec reads the {{$r.Name}}Row of a row in each dialect.
var {{lower $r.Name}}Codec = rowCodec[{{$r.Name}}Row]{decode: decode{{$r.Name}}, scan: scan{{$r.Name}}}

func new{{$r.Name}}Page(limit int) *Page[{{$r.Name}}Row] {
	p := {{lower $r.Name}}Pages.Get().(*Page[{{$r.Name}}Row])
	p.init(&{{lower $r.Name}}Pages, &{{lower $r.Name}}Codec, limit)
	return p
}

// {{lower $r.Name}}Columns are the columns that the {{lower $r.Plural}} statements
// return after their leading ones, in the order decode{{$r.Name}} and
// scan{{$r.Name}} read them (TestQueries).
var {{lower $r.Name}}Columns = []string{ {{range $i, $f := $r.Read}}{{if $i}}, {{end}}{{quote $f.Column}}{{end}} }

// decode{{$r.Name}} reads one row from pgx's raw values (the leading meta
// columns excluded); its text goes into *arena.
func decode{{$r.Name}}(vals [][]byte, fds []pgconn.FieldDescription, arena *[]byte) ({{$r.Name}}Row, error) {
	d := rawDecoder{vals: vals, fds: fds, arena: *arena}
	if len(vals) != {{len $r.Read}} || len(fds) != {{len $r.Read}} {
		return {{$r.Name}}Row{}, errColumnCount
	}
	r := {{$r.Name}}Row{
{{- range $r.Read}}
		{{.Go}}: {{.Decode}},
{{- end}}
	}
	*arena = d.arena
	return r, d.err
}

// scan{{$r.Name}} reads one row of a SQLite statement.
func scan{{$r.Name}}(rows *sql.Rows) ({{$r.Name}}Row, error) {
	var r {{$r.Name}}Row
	err := rows.Scan(r.dest()...)
	return r, err
}

// dest are the pointers to r's fields in the order of {{lower $r.Name}}Columns
// (scan{{$r.Name}}; changes.go scans an insight after the columns of its change).
func (r *{{$r.Name}}Row) dest() []any {
	return []any{ {{range $i, $f := $r.Read}}{{if $i}}, {{end}}&r.{{$f.Go}}{{end}} }
}

// appendJSON writes r as the API returns it.
func (r *{{$r.Name}}Row) appendJSON(a *wirejson.Appender) {
{{- range $r.Read}}
	a.Raw({{bq .Key}})
	{{.Encode}}
{{- end}}
	a.Raw({{bq (index $r.Read (len (slice $r.Read 1))).Close}})
}
{{end}}`))

var snapshotTmpl = template.Must(template.New("snapshot").Funcs(funcs).Parse(`// Code generated by store/gen from store/schema; DO NOT EDIT.

package snapshot

import "encoding/json"

// {{.R.Name}} is one day of one account (CampaignID nil) or one campaign.
// Fields the API does not return are stored and never returned.
type {{.R.Name}} struct {
{{- range .R.Doc}}
	{{.Go}} {{.DocType}} ` + "`" + `json:"{{.JSON}}{{if .DocOmitEmpty}},omitempty{{end}}"` + "`" + `
{{- end}}
}

// checkInsightFields checks the declared insight fields (the others are
// checked by hand in insight).
func (p *problems) checkInsightFields(path string, in *{{.R.Name}}) {
{{- range .R.Checked}}
{{- if eq .Check "text"}}
	p.text(path+".{{.JSON}}", in.{{.Go}}, true)
{{- else if eq .Check "decimal"}}
	p.decimal(path+".{{.JSON}}", {{if not .Null}}&{{end}}in.{{.Go}}, {{not .Null}})
{{- else if eq .Check "count"}}
	p.count(path+".{{.JSON}}", in.{{.Go}})
{{- else if eq .Check "number"}}
	p.number(path+".{{.JSON}}", in.{{.Go}})
{{- else if eq .Check "enum"}}
	switch in.{{.Go}} {
	case {{enum .Enum}}:
	default:
		p.add(path+".{{.JSON}}", "want one of {{join .Enum ", "}}, got %s", quote(in.{{.Go}}))
	}
{{- end}}
{{- end}}
}

// insightFieldColumns are the staging and table columns of the declared
// insight fields, with their staging types.
var insightFieldColumns = [][2]string{
{{- range .R.Checked}}
	{ {{quote .Column}}, {{quote .Stage}} },
{{- end}}
}

// insightFieldValues appends the staged values of the declared fields (a
// validated element: counts are present).
func insightFieldValues(args []any, in *{{.R.Name}}) []any {
	return append(args{{range .R.Checked}}, {{if eq .Check "count"}}*{{end}}in.{{.Go}}{{end}})
}

// insightDecimalColumns are the declared decimal columns (compared as text by the merge).
var insightDecimalColumns = map[string]bool{ {{range .R.Checked}}{{if isDecimal .}}{{quote .Column}}: true, {{end}}{{end}} }
`))
