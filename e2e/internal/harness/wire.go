package harness

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// wireProps are the properties of each resource schema of api-server's
// openapi.yaml, which go generate writes from api-server's store/schema:
// the expected objects of a resource have exactly these keys, so that a
// field declared there is expected (null unless the fixture carries it)
// without a change here.
var wireProps = sync.OnceValues(func() (map[string][]string, error) {
	doc, err := openapi3.NewLoader().LoadFromFile(filepath.Join(RepoRoot(), "api-server", "openapi.yaml"))
	if err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	out := map[string][]string{}
	for _, name := range []string{"Account", "Campaign", "Insight"} {
		s := doc.Components.Schemas[name]
		if s == nil || s.Value == nil {
			return nil, fmt.Errorf("openapi.yaml has no schema %s", name)
		}
		for p := range s.Value.Properties {
			out[name] = append(out[name], p)
		}
	}
	return out, nil
})

// wireObject is the expected object of resource name for a document
// element doc (a fixture struct): every property of the resource's schema,
// with the document's value of the same name (decoded JSON: float64
// numbers), or null where the document has none; the caller then sets
// what the server takes from elsewhere (the account, the date's form).
func wireObject(name string, doc any) map[string]any {
	props, err := wireProps()
	if err != nil {
		panic(err)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	var vals map[string]any
	if err := json.Unmarshal(b, &vals); err != nil {
		panic(err)
	}
	obj := make(map[string]any, len(props[name]))
	for _, p := range props[name] {
		obj[p] = vals[p]
	}
	return obj
}
