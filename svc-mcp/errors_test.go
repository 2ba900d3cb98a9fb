package svcmcp

import (
	"net/http"
	"strings"
	"testing"
	"time"

	svc "github.com/adsnap/svc/sdk-go"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var toolScopes = map[string]string{
	"svc_accounts":  "accounts:read",
	"svc_campaigns": "campaigns:read",
	"svc_insights":  "insights:read",
}

// assertToolError checks that res is a tool error whose text contains every
// one of want and never the key.
func assertToolError(t *testing.T, res *mcp.CallToolResult, want ...string) {
	t.Helper()
	txt := text(t, res)
	if !res.IsError {
		t.Fatalf("isError = false, want true; text: %s", txt)
	}
	for _, w := range want {
		if !strings.Contains(txt, w) {
			t.Errorf("tool error %q lacks %q", txt, w)
		}
	}
	if strings.Contains(txt, testKey) {
		t.Errorf("tool error contains the API key: %s", txt)
	}
}

func TestServiceErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		resp *apiResponse
		args map[string]any
		want func(scope string) []string
	}{
		{
			name: "400 lists the problems",
			resp: &apiResponse{status: 400, body: `{"statusCode":400,"message":["limit must not be greater than 100","unknown query field: foo"]}`},
			want: func(string) []string {
				return []string{"rejected the request (400): limit must not be greater than 100; unknown query field: foo"}
			},
		},
		{
			name: "401 says to replace the key",
			resp: &apiResponse{status: 401, body: `{"statusCode":401,"message":"API key expired"}`},
			want: func(string) []string {
				return []string{"the API key was refused (missing, invalid, revoked or expired): create a new key in Settings → Developer keys and set SVC_API_KEY", "API key expired"}
			},
		},
		{
			// The body cannot tell a missing scope from a demoted issuer
			// (SPEC §7): both fixes are named, whatever the text says.
			name: "403 missing scope names the scope",
			resp: &apiResponse{status: 403, body: `{"statusCode":403,"message":"Missing required scope"}`},
			want: func(scope string) []string {
				return []string{"(403): Missing required scope", "the key needs the scope " + scope, "its issuer must still be an owner or administrator"}
			},
		},
		{
			name: "403 issuer no longer admin",
			resp: &apiResponse{status: 403, body: `{"statusCode":403,"message":"Key issuer is no longer an administrator of the organization"}`},
			want: func(scope string) []string {
				return []string{"no longer an administrator", "the key needs the scope " + scope, "its issuer must still be an owner or administrator"}
			},
		},
		{
			name: "404 unknown account",
			args: map[string]any{"accountId": "act_missing"},
			want: func(string) []string {
				return []string{"not found (404): account not found in the key's organization", "accountId is not an account of your organization"}
			},
		},
		{
			name: "429 says to wait 60 seconds",
			resp: &apiResponse{status: 429, body: `{"statusCode":429,"message":"ThrottlerException: Too Many Requests"}`, headers: map[string]string{"Retry-After": "60"}},
			want: func(string) []string {
				return []string{"rate limited: wait 60 seconds before calling again", "Too Many Requests"}
			},
		},
		{
			name: "503 fails closed",
			resp: &apiResponse{status: 503, body: `{"statusCode":503,"message":"Service temporarily unavailable"}`, headers: map[string]string{"X-Request-Id": "req-42"}},
			want: func(string) []string {
				return []string{"the service is refusing reads for safety (its protection store is unavailable); try again later", "(request id req-42)"}
			},
		},
		{
			name: "500",
			resp: &apiResponse{status: 500, body: `<html>oops</html>`},
			want: func(string) []string { return []string{"the service answered 500 Internal Server Error", "oops"} },
		},
	}
	for _, tt := range tests {
		for tool, scope := range toolScopes {
			t.Run(tt.name+"/"+tool, func(t *testing.T) {
				t.Parallel()
				api := newTestAPI(t)
				if tt.resp != nil {
					api.respond("/"+strings.TrimPrefix(tool, "svc_"), tt.resp)
				}
				cs := connectAPI(t, api)
				res := call(t, cs, tool, tt.args)
				assertToolError(t, res, tt.want(scope)...)
				if res.StructuredContent != nil {
					t.Errorf("structuredContent = %v, want none on a tool error", res.StructuredContent)
				}
			})
		}
	}
}

func TestNetworkErrors(t *testing.T) {
	t.Parallel()
	t.Run("unreachable", func(t *testing.T) {
		t.Parallel()
		api := newTestAPI(t)
		site := api.siteURL()
		api.Close()
		cs := connect(t, WithSiteURL(site), WithSDKOptions(svc.WithAPIKey(testKey), svc.WithRetryBackoff(time.Millisecond)))
		res := call(t, cs, "svc_accounts", nil)
		assertToolError(t, res, "the service could not be reached", "GET /accounts")
	})
	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		api := newTestAPI(t)
		release := make(chan struct{})
		t.Cleanup(func() { close(release) })
		api.respond("/campaigns", &apiResponse{status: 200, body: `{}`, delay: release})
		cs := connectAPI(t, api, WithSDKOptions(svc.WithTimeout(50*time.Millisecond)))
		res := call(t, cs, "svc_campaigns", nil)
		assertToolError(t, res, "the service did not answer in time", "50ms")
	})
	t.Run("redirect", func(t *testing.T) {
		t.Parallel()
		api := newTestAPI(t)
		api.respond("/insights", &apiResponse{status: http.StatusFound, body: `{}`, headers: map[string]string{"Location": "https://elsewhere.example/x"}})
		cs := connectAPI(t, api)
		res := call(t, cs, "svc_insights", nil)
		assertToolError(t, res, "redirect", "never followed")
	})
}

// TestKeyProblems covers the key of WithAPIKey: missing, malformed and
// good, and that the server never reads SVC_API_KEY itself.
func TestKeyProblems(t *testing.T) {
	api := newTestAPI(t)
	t.Run("missing", func(t *testing.T) {
		cs := connect(t, WithSiteURL(api.siteURL()), WithAPIKey(""))
		for tool := range toolScopes {
			res := call(t, cs, tool, nil)
			assertToolError(t, res, "SVC_API_KEY is not set", "Settings → Developer keys", "env of this server's entry in the MCP host configuration")
		}
	})
	t.Run("not read from the environment", func(t *testing.T) {
		t.Setenv(svc.APIKeyEnv, testKey)
		cs := connect(t, WithSiteURL(api.siteURL()))
		assertToolError(t, call(t, cs, "svc_accounts", nil), "SVC_API_KEY is not set")
	})
	t.Run("malformed", func(t *testing.T) {
		const bad = "svc_live_0000000000000000000000000000000000000XXXXXX"
		cs := connect(t, WithSiteURL(api.siteURL()), WithAPIKey(bad))
		for tool := range toolScopes {
			res := call(t, cs, tool, nil)
			txt := text(t, res)
			assertToolError(t, res, "SVC_API_KEY is malformed (the checksum does not match", "set SVC_API_KEY")
			if strings.Contains(txt, bad) || strings.Contains(txt, "XXXXXX") {
				t.Errorf("tool error shows the key: %s", txt)
			}
		}
	})
	t.Run("WithAPIKey", func(t *testing.T) {
		cs := connect(t, WithSiteURL(api.siteURL()), WithAPIKey(testKey))
		if res := call(t, cs, "svc_accounts", nil); res.IsError {
			t.Fatalf("tool error: %s", text(t, res))
		}
	})
	t.Run("invalid site URL", func(t *testing.T) {
		cs := connect(t, WithSiteURL("http://adsnap.example"), WithAPIKey(testKey))
		res := call(t, cs, "svc_accounts", nil)
		assertToolError(t, res, "the site URL is invalid", "SVC_SITE_URL")
	})
}

func TestInvalidArguments(t *testing.T) {
	t.Parallel()
	api := newTestAPI(t)
	cs := connectAPI(t, api)
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"svc_accounts", map[string]any{"limit": 0}, "limit"},
		{"svc_accounts", map[string]any{"limit": 101}, "limit"},
		{"svc_campaigns", map[string]any{"offset": -1}, "offset"},
		{"svc_campaigns", map[string]any{"offset": 10001}, "offset"},
		{"svc_campaigns", map[string]any{"accountId": "act 1; drop"}, "accountId"},
		{"svc_accounts", map[string]any{"accountId": strings.Repeat("a", 129)}, "accountId"},
		{"svc_accounts", map[string]any{"unknown": 1}, "unknown"},
		{"svc_insights", map[string]any{"from": "20 Nov"}, "from"},
		{"svc_insights", map[string]any{"from": "2026-02-30"}, `from "2026-02-30" is not a date in the form YYYY-MM-DD`},
		{"svc_insights", map[string]any{"from": "2026-11-10", "to": "2026-11-01"}, "no request was made: from 2026-11-10 is after to 2026-11-01"},
		{"svc_insights", map[string]any{"from": "2026-01-01", "to": "2026-11-01"}, "at most 90 are allowed"},
		{"svc_insights", map[string]any{"to": "2999-01-01"}, "is in the future"},
	}
	for _, tt := range tests {
		res := call(t, cs, tt.tool, tt.args)
		assertToolError(t, res, tt.want)
	}
	if got := api.lastQuery(); got != "" {
		t.Errorf("invalid arguments reached the API: %s", got)
	}
}
