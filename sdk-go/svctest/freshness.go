package svctest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
)

// serveFreshness answers GET /insights/freshness (issue 46) with
// LastImport, after the key and the scope: no query parameter is allowed.
func (a *API) serveFreshness(w http.ResponseWriter, r *http.Request) {
	values, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		WriteError(w, http.StatusBadRequest, []string{"the query string is malformed (bad percent-encoding or a semicolon)"})
		return
	}
	var problems []string
	for k := range values {
		problems = append(problems, fmt.Sprintf("unknown query parameter %s (allowed: none)", strconv.Quote(k)))
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		WriteError(w, http.StatusBadRequest, problems)
		return
	}
	asOf := a.DataAsOf
	if asOf == "" {
		asOf = "1970-01-01T00:00:00Z"
	}
	var generated any
	if a.GeneratedAt != "" {
		generated = a.GeneratedAt
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"data": map[string]any{"dataAsOf": asOf, "lastImport": json.RawMessage(a.LastImport)},
		"meta": map[string]any{"source": "stored_snapshot", "liveMetaRequest": false, "generatedAt": generated, "note": Note},
	})
}
