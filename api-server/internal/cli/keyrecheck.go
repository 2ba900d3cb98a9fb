package cli

import (
	"fmt"
	"time"

	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/spf13/pflag"
)

// addKeyRecheckFlag adds --key-recheck (addServeFlags: serve and demo).
func addKeyRecheckFlag(fs *pflag.FlagSet, c *config, e *envErrors) {
	fs.DurationVar(&c.KeyRecheck, "key-recheck", e.duration("SVC_KEY_RECHECK", keys.DefaultRecheck),
		"longest a key remembered by this process is trusted without reading its full state again. Revocation, expiry "+
			"changes, demotion and removal count from the next request after they commit (the key-state epoch); this bounds "+
			"only writes that bypass the database's triggers. 0: read every key's state on every request (env SVC_KEY_RECHECK)")
}

// checkKeyRecheck is checkServe's check of --key-recheck.
func (c *config) checkKeyRecheck() error {
	if c.KeyRecheck < 0 {
		return usageError{fmt.Errorf("--key-recheck must be 0 or more, got %s", c.KeyRecheck)}
	}
	return nil
}

// keyRecheck is keys.AuthenticatorOptions.Recheck for --key-recheck: 0
// is "never remember" (negative there).
func (c *config) keyRecheck() time.Duration {
	if c.KeyRecheck == 0 {
		return -1
	}
	return c.KeyRecheck
}
