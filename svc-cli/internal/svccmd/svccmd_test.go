package svccmd

import (
	"strings"
	"testing"

	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
	"github.com/adsnap/svc/svc-cli/internal/testapi"
)

func TestRun(t *testing.T) {
	t.Parallel()
	api := testapi.New()
	t.Cleanup(api.Close)
	tests := []struct {
		args    string
		route   string
		code    cmdutil.ExitCode
		wantErr string
	}{
		{"--help", "", cmdutil.ExitOK, ""},
		{"accounts", "", cmdutil.ExitOK, ""},
		{"nosuch", "", cmdutil.ExitUsage, "svc: unknown command \"nosuch\" for \"svc\"\nRun 'svc --help' for usage.\n"},
		{"accounts --nope", "", cmdutil.ExitUsage, "svc: unknown flag: --nope\nRun 'svc accounts --help' for usage.\n"},
		{"campaigns", "/forbidden", cmdutil.ExitAuth, ""},
		{"insights", "/notfound", cmdutil.ExitNotFound, ""},
		{"accounts", "/ratelimited", cmdutil.ExitRateLimited, ""},
		{"accounts", "/unavailable", cmdutil.ExitUnavailable, ""},
		{"accounts", "/redirect", cmdutil.ExitError, ""},
	}
	for _, tt := range tests {
		t.Run(tt.args+tt.route, func(t *testing.T) {
			t.Parallel()
			ios, _, _, stderr := testapi.Streams(testapi.TTY{})
			code := Run(t.Context(), testapi.Factory(ios, api.Env(tt.route)), strings.Fields(tt.args))
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tt.code, stderr)
			}
			if tt.wantErr != "" && stderr.String() != tt.wantErr {
				t.Errorf("stderr = %q, want %q", stderr, tt.wantErr)
			}
		})
	}
}
