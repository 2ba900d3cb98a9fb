package reference

import (
	"encoding/json"
	"fmt"
	"html/template"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// The reference's model of the OpenAPI document: every operation of its
// paths, whatever they are, with what a reader needs. Read generically from
// the JSON form of openapi.yaml: operations added to the document appear
// without a change here.

// document is what page.html receives.
type document struct {
	Title, Version string
	Description    template.HTML
	BasePath       string // servers[0].url, e.g. /api/v1/developer
	Site           string // the configured site URL, or "" (the page shows a placeholder)
	Limits         []limit
	Ops            []operation
	CSS            string // the style sheet's URL, with its content hash
}

// operation is one method of one path.
type operation struct {
	ID, Method, Path, Summary string
	Description               template.HTML
	// Scope is the scope the operation needs: x-scope, else the roles of
	// its bearer security requirement, else the scope its description
	// names ("Requires the scope `x:y`"); "" when none says.
	Scope     string
	Params    []param
	Responses []response
	Limits    []limit
	Samples   []sample
}

type param struct {
	Name, In, Type, Constraints string
	Required                    bool
	Description                 template.HTML
}

type response struct {
	Status      string
	Description template.HTML
}

type limit struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// sample is one x-codeSamples entry: Label says which (curl, Go, svc).
type sample struct {
	Lang   string `json:"lang"`
	Label  string `json:"label"`
	Source string `json:"source"`
}

var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// scopeInText is the fallback source of an operation's scope.
var scopeInText = regexp.MustCompile("[Rr]equires the scope `([a-z_]+:[a-z_]+)`")

// parse reads the OpenAPI document (JSON) into the model.
func parse(openapiJSON []byte) (*document, error) {
	var doc map[string]any
	if err := json.Unmarshal(openapiJSON, &doc); err != nil {
		return nil, fmt.Errorf("reference: the OpenAPI document: %w", err)
	}
	info := obj(doc["info"])
	d := &document{Title: str(info["title"]), Version: str(info["version"]), Description: markdown(str(info["description"]))}
	if servers, _ := doc["servers"].([]any); len(servers) > 0 {
		d.BasePath = str(obj(servers[0])["url"])
	}
	if err := decode(doc["x-limits"], &d.Limits); err != nil {
		return nil, fmt.Errorf("reference: x-limits: %w", err)
	}
	paths := obj(doc["paths"])
	names := make([]string, 0, len(paths))
	for p := range paths {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		item := obj(resolve(doc, paths[p]))
		for _, m := range methods {
			raw, ok := item[m]
			if !ok {
				continue
			}
			op, err := parseOperation(doc, p, m, obj(raw), item["parameters"])
			if err != nil {
				return nil, err
			}
			d.Ops = append(d.Ops, op)
		}
	}
	return d, nil
}

func parseOperation(doc map[string]any, path, method string, o map[string]any, shared any) (operation, error) {
	op := operation{
		ID: str(o["operationId"]), Method: strings.ToUpper(method), Path: path,
		Summary: str(o["summary"]), Description: markdown(str(o["description"])),
		Scope: str(o["x-scope"]),
	}
	if op.ID == "" {
		op.ID = strings.ToLower(method) + strings.NewReplacer("/", "-", "{", "", "}", "").Replace(path)
	}
	if op.Scope == "" {
		for _, req := range list(o["security"]) {
			for _, roles := range obj(req) {
				if r := list(roles); len(r) > 0 {
					op.Scope = str(r[0])
				}
			}
		}
	}
	if m := scopeInText.FindStringSubmatch(str(o["description"])); op.Scope == "" && m != nil {
		op.Scope = m[1]
	}
	for _, raw := range append(list(shared), list(o["parameters"])...) {
		op.Params = append(op.Params, parseParam(doc, obj(resolve(doc, raw))))
	}
	codes := make([]string, 0)
	responses := obj(o["responses"])
	for c := range responses {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	for _, c := range codes {
		op.Responses = append(op.Responses, response{Status: c, Description: markdown(str(obj(resolve(doc, responses[c]))["description"]))})
	}
	if err := decode(o["x-limits"], &op.Limits); err != nil {
		return op, fmt.Errorf("reference: %s x-limits: %w", op.ID, err)
	}
	if err := decode(o["x-codeSamples"], &op.Samples); err != nil {
		return op, fmt.Errorf("reference: %s x-codeSamples: %w", op.ID, err)
	}
	return op, nil
}

func parseParam(doc, p map[string]any) param {
	s := obj(resolve(doc, p["schema"]))
	out := param{
		Name: str(p["name"]), In: str(p["in"]), Type: str(s["type"]),
		Required: p["required"] == true, Description: markdown(str(p["description"])),
	}
	if f := str(s["format"]); f != "" {
		out.Type += " (" + f + ")"
	}
	var c []string
	lo, hasLo := s["minimum"]
	hi, hasHi := s["maximum"]
	switch {
	case hasLo && hasHi:
		c = append(c, fmt.Sprintf("%v to %v", lo, hi))
	case hasLo:
		c = append(c, fmt.Sprintf("at least %v", lo))
	case hasHi:
		c = append(c, fmt.Sprintf("at most %v", hi))
	}
	if e := list(s["enum"]); len(e) > 0 {
		vals := make([]string, len(e))
		for i, v := range e {
			vals[i] = fmt.Sprint(v)
		}
		c = append(c, "one of "+strings.Join(vals, ", "))
	}
	if v, ok := s["default"]; ok {
		c = append(c, fmt.Sprintf("default %v", v))
	}
	if v := str(s["pattern"]); v != "" {
		c = append(c, "pattern "+v)
	}
	out.Constraints = strings.Join(c, ", ")
	return out
}

// resolve follows a local $ref ("#/components/…") until it reaches a value.
func resolve(doc map[string]any, v any) any {
	for range 16 {
		ref := str(obj(v)["$ref"])
		if !strings.HasPrefix(ref, "#/") {
			return v
		}
		var cur any = doc
		for _, part := range strings.Split(ref[2:], "/") {
			part = strings.NewReplacer("~1", "/", "~0", "~").Replace(part)
			cur = obj(cur)[part]
		}
		v = cur
	}
	return v
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// decode converts a JSON value (an extension) into out; nil leaves out empty.
func decode(v any, out any) error {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}
