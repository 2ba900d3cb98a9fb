package verify

import (
	"crypto/rand"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"aead.dev/minisign"

	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
	"github.com/adsnap/svc/svc-cli/internal/testapi"
)

// TestVerifyRollback (security review 2, finding 3): a release signed as
// svc-cli 1.0.0 is refused (exit 8) by an svc newer than it unless
// --version names it, and refused when --version names another release.
func TestVerifyRollback(t *testing.T) {
	t.Parallel()
	pub, key, err := minisign.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pubFile, _ := pub.MarshalText() // minisign's file: comment, then the base64 line
	lines := strings.Fields(string(pubFile))
	pubText := lines[len(lines)-1]
	dir := release(t, key, map[string]string{"a.tgz": "archive bytes", "b.mcpb": "bundle bytes"})
	for _, tc := range []struct {
		name, version, min, want string
	}{
		{"older than this svc", "", "1.1.0", "is signed for svc 1.0.0, older than this svc (1.1.0)"},
		{"older than a pre-release's release", "", "1.0.1-rc.1", "older than this svc"},
		{"named on purpose", "1.0.0", "1.1.0", ""},
		{"named with its v", "v1.0.0", "1.1.0", ""},
		{"another release named", "1.1.0", "1.1.0", "is signed for svc 1.0.0, not the 1.1.0 you asked for"},
		{"the same release", "", "1.0.0", ""},
		{"newer than this svc", "", "0.9.0", ""},
		{"a dev build: no minimum", "", "dev", ""},
	} {
		ios, _, stdout, _ := testapi.Streams(testapi.TTY{})
		err := verifyRun(&VerifyOptions{IO: ios, Files: []string{filepath.Join(dir, "a.tgz")}, Sums: filepath.Join(dir, "SHA256SUMS"),
			Signature: filepath.Join(dir, "SHA256SUMS.minisig"), PublicKey: pubText, Version: tc.version, MinVersion: tc.min})
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		var ve *cmdutil.VerifyError
		if code, _ := cmdutil.ExitFor(err); !errors.As(err, &ve) || code != cmdutil.ExitInvalid || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v (exit %d), want exit 8 with %q", tc.name, err, code, tc.want)
		}
		if strings.Contains(stdout.String(), "OK") {
			t.Errorf("%s: refused, yet printed %q", tc.name, stdout)
		}
	}
}

func TestOlder(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"0.9.0", "1.0.0", true}, {"1.0.0", "1.0.0", false}, {"1.10.0", "1.9.0", false}, {"1.9.0", "1.10.0", true},
		{"1.0.0-rc.1", "1.0.0", true}, {"1.0.0", "1.0.0-rc.1", false}, {"1.0.0+x", "1.0.0", false},
		{"1.0.0", "dev", false}, {"dev", "1.0.0", false},
	} {
		if got := older(tc.a, tc.b); got != tc.want {
			t.Errorf("older(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
