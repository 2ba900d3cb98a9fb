package svctest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"
)

func TestAPI(t *testing.T) {
	t.Parallel()
	api := &API{
		Key:      "k",
		Scopes:   []string{"accounts:read", "insights:read"},
		Accounts: []Row{{"a1", `{"id":"a1"}`}, {"a2", `{"id":"a2"}`}, {"a3", `{"id":"a3"}`}},
		Insights: []Row{{"a1", `{"id":"i1"}`}, {"a2", `{"id":"i2"}`}},
		DataAsOf: "2026-11-20T06:00:00Z",
		Now:      func() time.Time { return time.Date(2026, 11, 20, 23, 0, 0, 0, time.UTC) },
	}
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	tests := []struct {
		path, key string
		status    int
		messages  []string
		ids       []string
		next      any
	}{
		{"/x/api/v1/developer/accounts?limit=2", "k", 200, nil, []string{"a1", "a2"}, 2.0},
		{"/api/v1/developer/accounts?offset=2", "k", 200, nil, []string{"a3"}, nil},
		{"/api/v1/developer/insights?accountId=a2", "k", 200, nil, []string{"i2"}, nil},
		{"/api/v1/developer/accounts", "other", 401, []string{MessageUnauthorized}, nil, nil},
		{"/api/v1/developer/campaigns", "k", 403, []string{MessageMissingScope("campaigns:read")}, nil, nil},
		{"/api/v1/developer/nope", "k", 404, []string{MessageNoEndpoint}, nil, nil},
		{"/api/v1/developer/accounts?accountId=zz", "k", 404, []string{MessageAccountNotFound}, nil, nil},
		{"/api/v1/developer/accounts?limit=0&foo=1&from=2026-01-01", "k", 400, []string{
			`unknown query parameter "foo" (allowed: limit, offset, accountId)`,
			`unknown query parameter "from" (allowed: limit, offset, accountId)`,
			"limit must be between 1 and 100, got 0"}, nil, nil},
		{"/api/v1/developer/insights?limit=x&from=2026-11-21", "k", 400, []string{
			"limit must be an integer between 1 and 100, in plain digits (no sign, no leading zero)", "from must not be in the future (today is 2026-11-20 UTC)"}, nil, nil},
		{"/api/v1/developer/insights?from=2026-02-30", "k", 400, []string{"from must be a date YYYY-MM-DD (UTC)"}, nil, nil},
		{"/api/v1/developer/insights?from=2026-08-22", "k", 400, []string{
			"the range from 2026-08-22 to 2026-11-20 covers 91 days; at most 90 are allowed"}, nil, nil},
		{"/api/v1/developer/insights?from=2026-08-23", "k", 200, nil, []string{"i1", "i2"}, nil},
		{"/api/v1/developer/insights?to=2026-11-01&from=2026-11-02", "k", 400, []string{"from must not be after to"}, nil, nil},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+tt.path, nil)
		req.Header.Set("Authorization", "Bearer "+tt.key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Message []string `json:"message"`
			Data    []struct {
				ID string `json:"id"`
			} `json:"data"`
			Meta map[string]any `json:"meta"`
		}
		var raw json.RawMessage
		_ = json.NewDecoder(resp.Body).Decode(&raw)
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("%s: status %d, want %d: %s", tt.path, resp.StatusCode, tt.status, raw)
			continue
		}
		if err := json.Unmarshal(raw, &body); err != nil {
			// a single message is a string
			var one struct {
				Message string `json:"message"`
			}
			if json.Unmarshal(raw, &one) != nil {
				t.Fatalf("%s: %s", tt.path, raw)
			}
			body.Message = []string{one.Message}
		}
		if !slices.Equal(body.Message, tt.messages) {
			t.Errorf("%s: messages %q, want %q", tt.path, body.Message, tt.messages)
		}
		if tt.status != 200 {
			continue
		}
		var ids []string
		for _, d := range body.Data {
			ids = append(ids, d.ID)
		}
		if !slices.Equal(ids, tt.ids) || body.Meta["nextOffset"] != tt.next || body.Meta["note"] != Note {
			t.Errorf("%s: ids %v meta %v, want %v next %v", tt.path, ids, body.Meta, tt.ids, tt.next)
		}
	}
}
