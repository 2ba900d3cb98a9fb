package version

import (
	"testing"

	"github.com/adsnap/svc/svc-cli/internal/testapi"
)

func TestVersion(t *testing.T) {
	t.Parallel()
	ios, _, stdout, _ := testapi.Streams(testapi.TTY{})
	if err := testapi.Execute(t, NewCmdVersion(testapi.Factory(ios, nil)), ""); err != nil {
		t.Fatal(err)
	}
	want := "svc dev (commit unknown, built unknown)\nsite: https://adsnap.example (built in; SVC_SITE_URL overrides)\n"
	if stdout.String() != want {
		t.Errorf("got %q, want %q", stdout, want)
	}
	if err := testapi.Execute(t, NewCmdVersion(testapi.Factory(ios, nil)), "extra"); err == nil {
		t.Error("an argument was accepted")
	}
}
