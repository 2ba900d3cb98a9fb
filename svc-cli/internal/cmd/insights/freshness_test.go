package insights

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/adsnap/svc/svc-cli/internal/testapi"
)

func TestInsightsFreshness(t *testing.T) {
	t.Parallel()
	api := testapi.New()
	t.Cleanup(api.Close)
	for _, tt := range []struct{ args, want string }{
		{"--freshness -o json", `"dataAsOf":`},
		{"--freshness -o csv", "dataAsOf,committedAt,upserts,deletes,changedDays\n2026-11-20T06:00:00Z,2026-11-20T06:04:12Z,12,1,2026-11-18 2026-11-19\n"},
		{"--freshness", "Data as of:"},
	} {
		t.Run(tt.args, func(t *testing.T) {
			ios, _, stdout, stderr := testapi.Streams(testapi.TTY{Stdout: true})
			if err := testapi.Execute(t, NewCmdInsights(testapi.Factory(ios, api.Env("")), nil), tt.args); err != nil {
				t.Fatalf("error: %v\nstderr: %s", err, stderr)
			}
			out := stdout.String()
			if !strings.Contains(out, tt.want) {
				t.Errorf("stdout %q does not contain %q", out, tt.want)
			}
			if strings.Contains(tt.args, "json") && !json.Valid([]byte(out)) {
				t.Errorf("not JSON: %q", out)
			}
		})
	}
	ios, _, _, _ := testapi.Streams(testapi.TTY{})
	if err := testapi.Execute(t, NewCmdInsights(testapi.Factory(ios, api.Env("")), nil), "--freshness --summary"); err == nil {
		t.Error("--freshness with --summary: no error")
	}
}
