package mcp

import (
	"testing"

	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
	"github.com/adsnap/svc/svc-cli/internal/testapi"
)

func TestNewCmdMCP(t *testing.T) {
	t.Parallel()
	ios, _, _, _ := testapi.Streams(testapi.TTY{})
	var got *MCPOptions
	f := testapi.Factory(ios, map[string]string{"SVC_SITE_URL": "http://127.0.0.1:9"})
	cmd := NewCmdMCP(f, func(o *MCPOptions) error { got = o; return nil })
	if err := testapi.Execute(t, cmd, "--verbose"); err != nil {
		t.Fatal(err)
	}
	if got.SiteURL != "http://127.0.0.1:9" || !got.Verbose || len(got.SDKOptions) == 0 {
		t.Errorf("options = %+v", got)
	}
	for _, args := range []string{"--key-stdin", "extra"} {
		if code, _ := cmdutil.ExitFor(testapi.Execute(t, NewCmdMCP(f, nil), args)); code != cmdutil.ExitUsage {
			t.Errorf("%s: exit %d, want usage", args, code)
		}
	}
}

func TestMCPRunRefusesBadKey(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]cmdutil.ExitCode{"": cmdutil.ExitAuth, "svc_live_nope": cmdutil.ExitAuth} {
		ios, _, stdout, _ := testapi.Streams(testapi.TTY{})
		err := testapi.Execute(t, NewCmdMCP(testapi.Factory(ios, map[string]string{"SVC_API_KEY": key}), nil), "")
		if code, msg := cmdutil.ExitFor(err); code != want {
			t.Errorf("key %q: exit %d (%s), want %d", key, code, msg, want)
		}
		if stdout.Len() != 0 {
			t.Errorf("key %q: stdout %q", key, stdout)
		}
	}
}
