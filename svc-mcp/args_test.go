package svcmcp

import (
	"strings"
	"testing"
)

// TestArgumentErrors: arguments that do not match the input schema give a
// tool error that names the argument and shows JSON values, never the
// SDK's "<invalid reflect.Value>" or fractions such as "500/1".
func TestArgumentErrors(t *testing.T) {
	t.Parallel()
	api := newTestAPI(t)
	cs := connectAPI(t, api)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"svc_accounts", map[string]any{"limit": nil}, "invalid arguments, no request was made: limit must be an integer, not null; leave it out to use its default"},
		{"svc_insights", map[string]any{"accountId": nil}, "accountId must be a string, not null"},
		{"svc_campaigns", map[string]any{"offset": "10"}, "offset must be an integer, not a string"},
		{"svc_accounts", map[string]any{"limit": 500}, "limit: maximum: 500 is greater than 100"},
		{"svc_accounts", map[string]any{"bogus": 1}, `unknown argument ["bogus"]`},
	} {
		res := call(t, cs, tc.tool, tc.args)
		assertToolError(t, res, tc.want)
		if txt := text(t, res); strings.Contains(txt, "reflect") || strings.Contains(txt, "/1 ") || strings.Contains(txt, "validating") {
			t.Errorf("%s %v: %q still has the SDK's internals", tc.tool, tc.args, txt)
		}
	}
	if q := api.lastQuery(); q != "" {
		t.Errorf("a request was sent for invalid arguments: %s", q)
	}
}
