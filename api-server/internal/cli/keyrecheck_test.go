package cli

import (
	"errors"
	"testing"
	"time"

	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/spf13/pflag"
)

// TestKeyRecheckFlag: --key-recheck defaults to keys.DefaultRecheck, takes
// SVC_KEY_RECHECK, maps 0 to "read every request" and refuses a negative
// value as a usage error.
func TestKeyRecheckFlag(t *testing.T) {
	parse := func(env string, args ...string) (*config, envErrors) {
		t.Helper()
		t.Setenv("SVC_KEY_RECHECK", env)
		var c config
		var e envErrors
		fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
		addKeyRecheckFlag(fs, &c, &e)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return &c, e
	}
	if c, _ := parse(""); c.keyRecheck() != keys.DefaultRecheck || c.checkKeyRecheck() != nil {
		t.Errorf("default: %s", c.keyRecheck())
	}
	if c, _ := parse("5s"); c.keyRecheck() != 5*time.Second {
		t.Errorf("SVC_KEY_RECHECK=5s: %s", c.keyRecheck())
	}
	if c, _ := parse("5s", "--key-recheck", "0"); c.keyRecheck() >= 0 {
		t.Errorf("--key-recheck 0: %s, want negative (nothing remembered)", c.keyRecheck())
	}
	if _, e := parse("soon"); len(e) != 1 {
		t.Errorf("SVC_KEY_RECHECK=soon: %v", e)
	}
	c, _ := parse("", "--key-recheck", "-1s")
	var u usageError
	if err := c.checkKeyRecheck(); !errors.As(err, &u) {
		t.Errorf("--key-recheck -1s: %v, want a usage error", err)
	}
}
