package harness

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// Contract validates responses against api-server/openapi.yaml.
type Contract struct {
	router routers.Router
}

// LoadContract loads the OpenAPI document with the replicas' base URLs as
// its servers.
func LoadContract(ctx context.Context, baseURLs []string) (*Contract, error) {
	loader := &openapi3.Loader{Context: ctx}
	doc, err := loader.LoadFromFile(filepath.Join(RepoRoot(), "api-server", "openapi.yaml"))
	if err != nil {
		return nil, fmt.Errorf("load openapi.yaml: %w", err)
	}
	if err := doc.Validate(ctx); err != nil {
		return nil, fmt.Errorf("openapi.yaml is invalid: %w", err)
	}
	doc.Servers = nil
	for _, u := range baseURLs {
		doc.Servers = append(doc.Servers, &openapi3.Server{URL: u + "/api/v1/developer"})
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	return &Contract{router: router}, nil
}

// Check validates one response (status, headers, body) against the
// operation the request matches. A request that matches no operation is an
// error: callers only check API calls.
func (c *Contract) Check(ctx context.Context, resp *http.Response, body []byte) error {
	route, params, err := c.router.FindRoute(resp.Request)
	if err != nil {
		return fmt.Errorf("%s %s: no operation in openapi.yaml: %w", resp.Request.Method, resp.Request.URL.Path, err)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: resp.Request, PathParams: params, Route: route,
		},
		Status: resp.StatusCode,
		Header: resp.Header,
		Body:   io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{
			IncludeResponseStatus: true,
			MultiError:            true,
		},
	}
	if err := openapi3filter.ValidateResponse(ctx, in); err != nil {
		return fmt.Errorf("%s %s → %d does not match openapi.yaml: %w", resp.Request.Method, resp.Request.URL.RequestURI(), resp.StatusCode, err)
	}
	return nil
}
