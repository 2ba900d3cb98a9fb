package server

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	apiserver "github.com/adsnap/svc/api-server"
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
	for path, id := range map[string]string{"/accounts": "readAccountSnapshots", "/campaigns": "readCampaignSnapshots", "/insights": "readInsightSnapshots"} {
		if got := doc.Paths[path]["get"].OperationID; got != id {
			t.Errorf("%s: operationId %q, want %q", path, got, id)
		}
	}
	for name, v := range map[string]any{"Account": account{}, "Campaign": campaign{}, "Insight": insight{},
		"Meta": meta{}, "AccountRef": accountRef{}, "Error": errorBody{}} {
		s, ok := doc.Components.Schemas[name]
		if !ok {
			t.Errorf("no schema %s", name)
			continue
		}
		var fields []string
		rt := reflect.TypeOf(v)
		for i := range rt.NumField() {
			tag, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			fields = append(fields, tag)
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
