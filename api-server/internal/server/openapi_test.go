package server

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	apiserver "github.com/adsnap/svc/api-server"
	"github.com/adsnap/svc/api-server/internal/store/schema"
)

// TestOpenAPIAgrees checks that openapi.yaml describes exactly the wire
// structs: the same properties, all required, no others allowed.
func TestOpenAPIAgrees(t *testing.T) {
	raw, err := apiserver.OpenAPIJSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OpenAPI string `json:"openapi"`
		Info    struct {
			Version string `json:"version"`
		} `json:"info"`
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Required             []string                   `json:"required"`
				Properties           map[string]json.RawMessage `json:"properties"`
				AdditionalProperties *bool                      `json:"additionalProperties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" || doc.Info.Version != "1.0.0" {
		t.Errorf("openapi %s, version %s", doc.OpenAPI, doc.Info.Version)
	}
	// The document's paths are the endpoint table's (endpoints.go).
	for _, ep := range endpoints {
		if got := doc.Paths[ep.path]["get"].OperationID; got != ep.operation {
			t.Errorf("%s: operationId %q, want %q", ep.path, got, ep.operation)
		}
	}
	if len(doc.Paths) != len(endpoints) {
		t.Errorf("openapi.yaml has %d paths, the endpoint table %d", len(doc.Paths), len(endpoints))
	}
	// The resources' wire fields come from their declaration (store/schema).
	wire := map[string][]string{}
	for _, r := range []schema.Resource{schema.Account, schema.Campaign, schema.Insight} {
		for _, f := range r.Fields {
			switch {
			case !f.Read:
			case f.Group == "":
				wire[r.Name] = append(wire[r.Name], f.JSON)
			case !slices.Contains(wire[r.Name], f.Group):
				wire[r.Name] = append(wire[r.Name], f.Group)
				fallthrough
			default:
				if r.Name == "Campaign" { // the same AccountRef in Insight
					wire["AccountRef"] = append(wire["AccountRef"], f.JSON)
				}
			}
		}
	}
	for name, v := range map[string]any{"Account": nil, "Campaign": nil, "Insight": nil,
		"Meta": meta{}, "AccountRef": nil, "Error": errorBody{}, "ChangesMeta": changesMeta{}} {
		s, ok := doc.Components.Schemas[name]
		if !ok {
			t.Errorf("no schema %s", name)
			continue
		}
		fields := slices.Clone(wire[name])
		if v != nil {
			rt := reflect.TypeOf(v)
			for i := range rt.NumField() {
				tag, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
				fields = append(fields, tag)
			}
		}
		slices.Sort(fields)
		var props []string
		for p := range s.Properties {
			props = append(props, p)
		}
		slices.Sort(props)
		req := slices.Sorted(slices.Values(s.Required))
		if !slices.Equal(fields, props) || !slices.Equal(fields, req) {
			t.Errorf("%s: wire %v, schema properties %v, required %v", name, fields, props, req)
		}
		if s.AdditionalProperties == nil || *s.AdditionalProperties {
			t.Errorf("%s: additionalProperties must be false", name)
		}
	}
}

// TestOpenAPIFormatsAndExamples: generated clients are not lossy and mock
// servers answer realistic values. purchases, purchaseValue and roas are
// 64-bit floats (format double: without it oapi-codegen makes float32, and
// 78.45 arrives as 78.44999694824219), dataAsOf is a date-time, their types
// and nullability stay the SPEC's, and every response has an example.
func TestOpenAPIFormatsAndExamples(t *testing.T) {
	raw, err := apiserver.OpenAPIJSON()
	if err != nil {
		t.Fatal(err)
	}
	type schema struct {
		Type       any               `json:"type"`
		Format     string            `json:"format"`
		Properties map[string]schema `json:"properties"`
	}
	type media struct {
		Example  any            `json:"example"`
		Examples map[string]any `json:"examples"`
	}
	type response struct {
		Ref     string           `json:"$ref"`
		Content map[string]media `json:"content"`
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]response `json:"responses"`
		} `json:"paths"`
		Components struct {
			Schemas   map[string]schema   `json:"schemas"`
			Responses map[string]response `json:"responses"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for schemaName, props := range map[string]map[string]string{
		"Insight": {"purchases": "double", "purchaseValue": "double", "roas": "double"},
		"Meta":    {"dataAsOf": "date-time", "generatedAt": "date-time"},
	} {
		for prop, format := range props {
			if got := doc.Components.Schemas[schemaName].Properties[prop].Format; got != format {
				t.Errorf("%s.%s: format %q, want %q", schemaName, prop, got, format)
			}
		}
	}
	for prop, typ := range map[string]string{"purchases": `["number","null"]`, "purchaseValue": `["number","null"]`, "roas": `["number","null"]`} {
		if got, _ := json.Marshal(doc.Components.Schemas["Insight"].Properties[prop].Type); string(got) != typ {
			t.Errorf("Insight.%s: type %s, want the SPEC's %s", prop, got, typ)
		}
	}
	if got := doc.Components.Schemas["Meta"].Properties["dataAsOf"].Type; got != "string" {
		t.Errorf("Meta.dataAsOf: type %v, want string", got)
	}
	for path, ops := range doc.Paths {
		for status, r := range ops["get"].Responses {
			if r.Ref != "" {
				r = doc.Components.Responses[strings.TrimPrefix(r.Ref, "#/components/responses/")]
			}
			if status == "304" { // Not Modified: no body (conditional.go)
				if len(r.Content) != 0 {
					t.Errorf("GET %s 304: has content", path)
				}
				continue
			}
			m := r.Content["application/json"]
			if m.Example == nil && len(m.Examples) == 0 {
				t.Errorf("GET %s %s: no example", path, status)
			}
		}
	}
}
