package cmdutil

import (
	"errors"
	"strings"
	"testing"

	svc "github.com/adsnap/svc/sdk-go"

	"github.com/adsnap/svc/svc-cli/internal/iostreams"
)

// A well-formed key: "svc_live_" + 37 base62 characters + checksum.
const goodKey = "svc_live_0123456789abcdefghijklmnopqrstuvwxyzA1bvae9"

func factory(env map[string]string, stdin string) *Factory {
	ios, in, _, _ := iostreams.Test()
	in.WriteString(stdin)
	return &Factory{IOStreams: ios, Getenv: func(k string) string { return env[k] }}
}

func TestClientKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		env      map[string]string
		stdin    string
		keyStdin bool
		wantErr  error
		wantCode ExitCode
	}{
		{name: "env", env: map[string]string{"SVC_API_KEY": goodKey}},
		{name: "stdin, trimmed, first line only", stdin: "  " + goodKey + "\r\nmore\n", keyStdin: true},
		{name: "stdin without newline", stdin: goodKey, keyStdin: true},
		{name: "stdin wins over env", env: map[string]string{"SVC_API_KEY": "svc_live_bad"}, stdin: goodKey + "\n", keyStdin: true},
		{name: "missing", wantErr: svc.ErrMissingAPIKey, wantCode: ExitAuth},
		{name: "malformed", env: map[string]string{"SVC_API_KEY": "svc_live_secretbutshort"}, wantErr: svc.ErrInvalidAPIKey, wantCode: ExitAuth},
		{name: "empty stdin", stdin: "", keyStdin: true, wantErr: errEmptyKey, wantCode: ExitAuth},
		{name: "blank first line", stdin: "  \n" + goodKey, keyStdin: true, wantErr: errEmptyKey, wantCode: ExitAuth},
		{name: "site refused", env: map[string]string{"SVC_API_KEY": goodKey, "SVC_SITE_URL": "http://example.com"}, wantCode: ExitError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := factory(tt.env, tt.stdin)
			c, err := f.Client(t.Context(), ClientOptions{KeyStdin: tt.keyStdin})
			if tt.wantCode == ExitOK {
				if err != nil || c == nil {
					t.Fatalf("Client: %v", err)
				}
				if strings.Contains(c.String(), goodKey) {
					t.Error("the client's string form holds the key")
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v, want %v", err, tt.wantErr)
			}
			code, msg := ExitFor(err)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d (%s)", code, tt.wantCode, msg)
			}
			if strings.Contains(msg, "secretbutshort") {
				t.Errorf("message holds the key: %s", msg)
			}
		})
	}
}

func TestSiteURL(t *testing.T) {
	t.Parallel()
	f := factory(nil, "")
	if got := f.SiteURL(); got != "https://adsnap.example" {
		t.Errorf("built-in site = %q", got)
	}
	f = factory(map[string]string{"SVC_SITE_URL": "http://127.0.0.1:1"}, "")
	if got := f.SiteURL(); got != "http://127.0.0.1:1" {
		t.Errorf("SVC_SITE_URL site = %q", got)
	}
}
