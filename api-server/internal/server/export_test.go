package server

import "github.com/adsnap/svc/keys-admin/apikey"

// TestEndpoint is what the external tests know of an endpoint of the
// table (endpoints.go).
type TestEndpoint struct {
	Path    string // under BasePath
	Scope   apikey.Scope
	Example string // a query it answers with 200
	Tagged  bool   // its 200s carry an ETag (DESIGN §4c)
}

// Endpoints are the endpoint table's values, for the external tests.
func Endpoints() []TestEndpoint {
	out := make([]TestEndpoint, len(endpoints))
	for i, ep := range endpoints {
		out[i] = TestEndpoint{Path: ep.path, Scope: ep.scope, Example: ep.example, Tagged: ep.tagged}
	}
	return out
}

// Compressed is compressed, for the benchmarks of package server_test.
var Compressed = compressed
