package svc

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestAPIErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		status    int
		header    map[string]string
		body      string
		want      APIError
		predicate string
	}{
		{
			name: "400 with every problem", status: http.StatusBadRequest,
			body: `{"statusCode":400,"message":["limit must not be greater than 100","unknown query field: foo"]}`,
			want: APIError{Messages: []string{"limit must not be greater than 100", "unknown query field: foo"}},
		},
		{
			name: "401", status: http.StatusUnauthorized,
			body: `{"statusCode":401,"message":"Invalid API key"}`,
			want: APIError{Messages: []string{"Invalid API key"}}, predicate: "IsUnauthorized",
		},
		{
			name: "403", status: http.StatusForbidden,
			body: `{"statusCode":403,"message":"missing scope insights:read"}`,
			want: APIError{Messages: []string{"missing scope insights:read"}}, predicate: "IsForbidden",
		},
		{
			name: "404", status: http.StatusNotFound,
			body: `{"statusCode":404,"message":"account not found"}`,
			want: APIError{Messages: []string{"account not found"}}, predicate: "IsNotFound",
		},
		{
			name: "429 with Retry-After", status: http.StatusTooManyRequests,
			header:    map[string]string{"Retry-After": "42"},
			body:      `{"statusCode":429,"message":"rate limit exceeded (key)"}`,
			want:      APIError{Messages: []string{"rate limit exceeded (key)"}, RetryAfter: 42 * time.Second},
			predicate: "IsRateLimited",
		},
		{
			name: "429 without Retry-After", status: http.StatusTooManyRequests,
			body:      `{"statusCode":429,"message":"rate limit exceeded (ip)"}`,
			want:      APIError{Messages: []string{"rate limit exceeded (ip)"}, RetryAfter: 60 * time.Second},
			predicate: "IsRateLimited",
		},
		{
			name: "429 with garbage Retry-After", status: http.StatusTooManyRequests,
			header:    map[string]string{"Retry-After": "soon"},
			body:      `{"statusCode":429,"message":"slow down"}`,
			want:      APIError{Messages: []string{"slow down"}, RetryAfter: 60 * time.Second},
			predicate: "IsRateLimited",
		},
		{
			name: "503", status: http.StatusServiceUnavailable,
			body: `{"statusCode":503,"message":"protection service unavailable"}`,
			want: APIError{Messages: []string{"protection service unavailable"}}, predicate: "IsUnavailable",
		},
		{
			name: "502 with an HTML body", status: http.StatusBadGateway,
			header: map[string]string{"Content-Type": "text/html"},
			body:   "<html>\n<body>Bad gateway</body></html>",
			want:   APIError{Messages: []string{`unexpected error body (text/html): "<html> <body>Bad gateway</body></html>"`}},
		},
		{
			name: "500 with a truncated JSON body", status: http.StatusInternalServerError,
			body: `{"statusCode":500,"mess`,
			want: APIError{Messages: []string{`unexpected error body (application/json): "{\"statusCode\":500,\"mess"`}},
		},
		{
			name: "500 with an empty body", status: http.StatusInternalServerError,
			want: APIError{Messages: []string{"empty error body"}},
		},
		{
			name: "400 with a message of the wrong type", status: http.StatusBadRequest,
			body: `{"statusCode":400,"message":{"nested":true}}`,
			want: APIError{Messages: []string{`unexpected error body (application/json): "{\"statusCode\":400,\"message\":{\"nested\":true}}"`}},
		},
		{
			name: "401 echoing the key", status: http.StatusUnauthorized,
			body: `{"statusCode":401,"message":"bad key ` + zeroKey + `"}`,
			want: APIError{Messages: []string{"bad key [redacted]"}}, predicate: "IsUnauthorized",
		},
	}
	predicates := map[string]func(error) bool{
		"IsUnauthorized": IsUnauthorized, "IsForbidden": IsForbidden, "IsNotFound": IsNotFound,
		"IsRateLimited": IsRateLimited, "IsUnavailable": IsUnavailable,
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("X-Request-Id", "req_123")
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			})
			_, err := c.Campaigns.List(t.Context(), nil)
			apiErr, ok := errors.AsType[*APIError](err)
			if !ok {
				t.Fatalf("List error = %v (%T), want an *APIError", err, err)
			}
			want := tt.want
			want.Endpoint, want.StatusCode, want.RequestID = "GET /campaigns", tt.status, "req_123"
			if d := diff(&want, apiErr); d != "" {
				t.Errorf("APIError mismatch (path: want, got):\n%s", d)
			}
			for name, p := range predicates {
				if want := name == tt.predicate; p(err) != want {
					t.Errorf("%s(err) = %v, want %v", name, p(err), want)
				}
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "svc: GET /campaigns: ") || !strings.Contains(msg, "(request id req_123)") {
				t.Errorf("Error() = %q, want the endpoint and the request id", msg)
			}
			if strings.Contains(msg, zeroKey) {
				t.Errorf("Error() = %q contains the key", msg)
			}
		})
	}
}

func TestAPIErrorMessage(t *testing.T) {
	t.Parallel()
	err := &APIError{Endpoint: "GET /insights", StatusCode: 429, Messages: []string{"rate limit exceeded (org)"},
		RetryAfter: time.Minute, RequestID: "r1"}
	want := "svc: GET /insights: 429 Too Many Requests: rate limit exceeded (org); retry after 1m0s (request id r1)"
	if got := err.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestAPIErrorBodyIsBounded(t *testing.T) {
	t.Parallel()
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"statusCode":500,"message":"`+strings.Repeat("x", 1<<20)+`"}`)
	})
	_, err := c.Accounts.List(t.Context(), nil)
	apiErr, ok := errors.AsType[*APIError](err)
	if !ok {
		t.Fatalf("List error = %v, want an *APIError", err)
	}
	if len(err.Error()) > 1000 || !strings.Contains(apiErr.Messages[0], "larger than 65536 bytes") {
		t.Errorf("Error() is %d bytes: %.300q", len(err.Error()), err)
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"60", time.Minute, true},
		{" 5 ", 5 * time.Second, true},
		{"0", 0, true},
		{"-1", 0, false},
		{"99999999", 0, false},
		{"Fri, 20 Nov 2026 10:00:30 GMT", 30 * time.Second, true},
		{"Fri, 20 Nov 2026 09:00:00 GMT", 0, true},
		{"later", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseRetryAfter(tt.in, now)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("parseRetryAfter(%q) = %s, %v; want %s, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}
