package svcmcp

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"strings"

	svc "github.com/adsnap/svc/sdk-go"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool is one file: it declares its arguments, its row type and a
// listTool (or, for a tool that is not a listing, an add function), and
// registers it in an init function. NewServer adds every registered tool;
// the glossary describes the columns of every registered listing.

// registered are the tools of the server, in registration order.
var registered []toolEntry

type toolEntry struct {
	name string
	add  func(*mcp.Server, *tools)
	// columns are the columns of a listing's rows (nil for other tools),
	// for the glossary.
	columns []column
	title   string
}

// registerTool adds a tool that is not a listing.
func registerTool(name string, add func(*mcp.Server, *tools)) {
	registered = append(registered, toolEntry{name: name, add: add})
}

// listArgs is what every listing's arguments embed.
type listArgs interface{ list() listInput }

// listTool describes a tool that reads one listing of the API in bounded
// calls: In are its arguments (embedding listInput), T the SDK's row and R
// the row the model sees.
type listTool[In listArgs, T, R any] struct {
	name, title, description string
	scope                    string // the key's scope the endpoint needs
	// adjustInput and adjustRow refine the inferred schemas (formats,
	// patterns, enums); either may be nil.
	adjustInput func(*jsonschema.Schema)
	adjustRow   func(*jsonschema.Schema)
	// start checks the arguments of a first call (no cursor) and returns
	// the listing and the period it covers ("" for none).
	start func(t *tools, c *svc.Client, in In) (func(context.Context) iter.Seq2[T, error], string, error)
	// checkCursor refuses arguments that a call with cursor would ignore;
	// nil means listInput's own check.
	checkCursor func(in In) error
	conv        func(T) R
	// dropNull leaves out, when fields is not given, the columns that are
	// null in every row of the result (the summary's names and
	// comparisons where the grouping or the arguments have none).
	dropNull bool
}

// registerList registers a listing tool.
func registerList[In listArgs, T, R any](lt listTool[In, T, R]) {
	cols := columnsOf(rowSchema[R](lt.adjustRow))
	registered = append(registered, toolEntry{name: lt.name, title: lt.title, columns: cols, add: func(s *mcp.Server, t *tools) {
		mcp.AddTool(s, &mcp.Tool{
			Name:         lt.name,
			Title:        lt.title,
			Description:  lt.description + " " + boundedDescription + " Read-only; scope " + lt.scope + ".",
			InputSchema:  listInputSchema[In](cols, lt.adjustInput),
			OutputSchema: compactListOutputSchema(),
			Annotations:  readOnly(lt.title),
		}, func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, listOutput, error) {
			return lt.call(ctx, t, cols, in)
		})
	}})
}

// boundedDescription ends every listing's description: the paging and the
// table in one sentence (the server's instructions and the glossary say
// more).
const boundedDescription = "Result: a table (columns, data rows; same = columns with one value in every row), at most limit rows (<= 100; default <= 50, about 8,000 tokens); complete false means call again with cursor (only limit and fields besides). fields keeps columns; the glossary defines them."

func (lt listTool[In, T, R]) call(ctx context.Context, t *tools, cols []column, in In) (*mcp.CallToolResult, listOutput, error) {
	li := in.list()
	check := lt.checkCursor
	if check == nil {
		check = func(In) error { return li.checkCursor() }
	}
	if err := check(in); err != nil {
		return nil, listOutput{}, t.failed(ctx, lt.name, err, lt.scope)
	}
	if err := checkFields(cols, li.Fields); err != nil {
		return nil, listOutput{}, t.failed(ctx, lt.name, err, lt.scope)
	}
	c, err := t.sdk()
	if err != nil {
		return nil, listOutput{}, t.failed(ctx, lt.name, err, lt.scope)
	}
	var start func(context.Context) iter.Seq2[T, error]
	period := ""
	if li.Cursor == "" {
		if start, period, err = lt.start(t, c, in); err != nil {
			return nil, listOutput{}, t.failed(ctx, lt.name, err, lt.scope)
		}
	}
	budget := 0
	if li.Limit == 0 {
		budget = rowBudgetBytes
	}
	p, err := bounded(ctx, t, lt.name, li.Cursor, li.Limit, li.Offset, period, budget, start, lt.conv)
	if err != nil {
		return nil, listOutput{}, t.failed(ctx, lt.name, err, lt.scope)
	}
	fields := li.Fields
	if lt.dropNull && len(fields) == 0 {
		if fields, err = nonNullColumns(cols, p.rows); err != nil {
			return nil, listOutput{}, t.failed(ctx, lt.name, err, lt.scope)
		}
	}
	return listResult(p, cols, fields)
}

// nonNullColumns are the columns with a value other than null in some row;
// nil (every column) when there is no row.
func nonNullColumns[R any](cols []column, rows []R) ([]string, error) {
	seen := map[string]bool{}
	for _, r := range rows {
		flat, err := flatten(r)
		if err != nil {
			return nil, err
		}
		for k, v := range flat {
			if v != nil {
				seen[k] = true
			}
		}
	}
	var out []string
	for _, c := range cols {
		if seen[c.name] {
			out = append(out, c.name)
		}
	}
	return out, nil
}

// maxFieldProblems is the most unknown fields an error names.
const maxFieldProblems = 5

// checkFields refuses a field that is not a column (the input schema lists
// no enum since issue 46: the column names are in the description and the
// glossary), naming each at most maxEcho bytes long.
func checkFields(cols []column, fields []string) error {
	var problems []string
	for _, f := range fields {
		if !slices.ContainsFunc(cols, func(c column) bool { return c.name == f }) {
			problems = append(problems, fmt.Sprintf("fields: %s is not a column of this tool", echo(f)))
		}
	}
	// Without the schema's enum, nothing else bounds what is echoed (the
	// security review's 5 MB argument): at most maxFieldProblems.
	if n := len(problems); n > maxFieldProblems {
		problems = append(problems[:maxFieldProblems], fmt.Sprintf("fields: %d more are not columns of this tool", n-maxFieldProblems))
	}
	if len(problems) > 0 {
		return &svc.ValidationError{Problems: problems}
	}
	return nil
}

// listInputSchema infers the input schema of In, adds the bounds of the
// paging arguments (SPEC §4), which struct tags cannot express, and makes
// fields an array of column names.
func listInputSchema[In any](cols []column, adjust func(*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("svcmcp: input schema: %v", err))
	}
	p := s.Properties
	p["limit"].Minimum, p["limit"].Maximum = jsonschema.Ptr(1.0), jsonschema.Ptr(float64(svc.MaxLimit))
	p["offset"].Minimum, p["offset"].Maximum = jsonschema.Ptr(0.0), jsonschema.Ptr(float64(svc.MaxOffset))
	p["offset"].Default = json.RawMessage("0")
	p["accountId"].Pattern = `^[a-zA-Z0-9_-]{1,128}$`
	p["accountId"].MinLength, p["accountId"].MaxLength = jsonschema.Ptr(1), jsonschema.Ptr(128)
	p["cursor"].MinLength, p["cursor"].MaxLength = jsonschema.Ptr(1), jsonschema.Ptr(100)
	// fields names columns without an enum, which would repeat every
	// column of every tool in tools/list: checkFields refuses an unknown
	// one with a clear message.
	f := p["fields"]
	f.Types, f.Type = nil, "array"
	f.Items = &jsonschema.Schema{Type: "string"}
	f.MinItems, f.UniqueItems = jsonschema.Ptr(1), true
	if adjust != nil {
		adjust(s)
	}
	return s
}

// listOutput is the structuredContent of every listing: a table and the
// API envelope's meta.
type listOutput struct {
	Columns  []string       `json:"columns"`
	Data     [][]any        `json:"data"`
	Same     map[string]any `json:"same"`
	Meta     meta           `json:"meta"`
	Complete bool           `json:"complete"`
	Cursor   *string        `json:"cursor"`
}

// compactListOutputSchema is the output schema of every listing: the shape
// of listOutput without descriptions or column enums (the description, the
// server's instructions and the glossary say what they mean), so that
// tools/list stays small. structuredContent always validates against it.
func compactListOutputSchema() *jsonschema.Schema {
	typ := func(t ...string) *jsonschema.Schema {
		if len(t) == 1 {
			return &jsonschema.Schema{Type: t[0]}
		}
		return &jsonschema.Schema{Types: t}
	}
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"columns":  {Type: "array", Items: typ("string")},
			"data":     {Type: "array", Items: typ("array")},
			"same":     typ("object"),
			"meta":     typ("object"),
			"complete": typ("boolean"),
			"cursor":   typ("null", "string"),
		},
		Required: []string{"columns", "data", "same", "meta", "complete", "cursor"},
	}
}

// listResult builds the result of a successful call: structuredContent is
// the table with the envelope's meta; the text content is a provenance line
// and the same table, one line a row.
func listResult[R any](p page[R], cols []column, fields []string) (*mcp.CallToolResult, listOutput, error) {
	tab, err := newTable(cols, fields, p.rows)
	if err != nil {
		return nil, listOutput{}, err
	}
	m := metaFromSDK(p.meta)
	m.DataAsOf, m.Note = cleanText(m.DataAsOf), cleanText(m.Note)
	out := listOutput{Columns: tab.columns, Data: tab.rows, Same: tab.same, Meta: m, Complete: p.complete, Cursor: p.cursor}
	if out.Columns == nil {
		out.Columns = []string{}
	}
	var b strings.Builder
	b.WriteString(headline(m, p.period, p.cursor))
	if len(p.rows) > 0 {
		b.WriteByte('\n')
		tab.text(&b)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, out, nil
}

// compactSchema is the schema inferred for T without its descriptions: an
// output schema that validates what a tool returns, while the tool's
// description and the glossary say what the fields mean.
func compactSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("svcmcp: schema: %v", err))
	}
	var strip func(*jsonschema.Schema)
	strip = func(s *jsonschema.Schema) {
		if s == nil {
			return
		}
		s.Description = ""
		for _, p := range s.Properties {
			strip(p)
		}
		strip(s.Items)
	}
	strip(s)
	return s
}
