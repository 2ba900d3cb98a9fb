// Package apiserver is the read-only HTTPS API of the Stored Advertising
// Snapshot Developer Service (binary svc-api).
//
// The API returns stored snapshots of advertising accounts, campaigns and
// daily insights of one organization, the one of the bearer key presented,
// under GET /api/v1/developer/accounts, /campaigns and /insights. Requests
// run the pipeline of DESIGN §3 (credential and organization-override guard,
// per-IP limit, key, per-key and per-organization limits, issuer and scope,
// query validation, account check) and fail closed when the rate-limit store
// is unavailable.
//
// The packages under internal/ hold the parts: cli (the svc-api commands),
// server (router, middleware, handlers), store (migrations and read
// queries), ratelimit (Redis and in-process limiters), snapshot (import,
// validation, demo data) and query (query string parsing). This package
// holds the OpenAPI document, openapi.yaml, which the server serves as JSON.
package apiserver

import (
	_ "embed"
	"fmt"

	"sigs.k8s.io/yaml"
)

// OpenAPIYAML is the API's OpenAPI 3.1 description, the single source of
// the document served at /api/v1/developer/openapi.json.
//
//go:embed openapi.yaml
var OpenAPIYAML []byte

// OpenAPIJSON returns OpenAPIYAML converted to JSON.
func OpenAPIJSON() ([]byte, error) {
	j, err := yaml.YAMLToJSON(OpenAPIYAML)
	if err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	return j, nil
}
