package cli

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/spf13/cobra"
)

// rollCmd is `keys-admin roll`: Manager.Roll, the new key printed once on
// standard output as create prints it.
func (a *app) rollCmd() *cobra.Command {
	var ac actor
	var days int
	var grace string
	cmd := &cobra.Command{
		Use:   "roll --org ORG --user USER [--expires-in-days N] [--grace DURATION] KEY_ID",
		Short: "Replace a key by a new one with the same scopes; the old one expires after a grace period",
		Long: `roll creates a new key with the old key's name and scopes and prints it, once,
on standard output; the old key keeps working for the grace period (0 to 7 days,
default 24h; 0 = it stops at once), then is refused (401). During the grace both
keys count against the 10 active keys, so at the limit only --grace 0 works.`,
		Example: `  NEW=$(keys-admin roll --org org_a --user u_1 --grace 48h key_XXXXXXXXXXXXXXXXXXXX)
  keys-admin roll --org org_a --user u_1 --grace 0 --expires-in-days 90 key_XXXXXXXXXXXXXXXXXXXX`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError{errors.New("roll takes exactly one KEY_ID (see `keys-admin list`)")}
			}
			return nil
		},
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			g, err := parseGrace(grace)
			if err != nil {
				return usageError{fmt.Errorf("--grace: %w", err)}
			}
			opt := keys.RollOptions{ExpiresInDays: days, Grace: g}
			if err := opt.Validate(); err != nil {
				return err
			}
			m, done, err := a.manager(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			r, err := m.Roll(cmd.Context(), ac.org, ac.user, args[0], opt)
			if err != nil {
				return err
			}
			fmt.Fprintln(a.stdout, r.New.Key)
			fmt.Fprintf(a.stderr, "rolled %s (%s) to %s (%s): scopes %s, expires %s\n"+
				"The old key is accepted until %s.\n"+
				"This is the only time the new key is shown; store it in a secret manager.\n",
				r.Old.ID, r.Old.Hint, r.New.ID, r.New.Hint, strings.Join(r.New.Scopes, ","),
				r.New.ExpiresAt.Format(time.RFC3339), r.Old.ExpiresAt.Format(time.RFC3339))
			return nil
		}),
	}
	ac.flags(cmd)
	cmd.Flags().IntVar(&days, "expires-in-days", 30, "the new key's lifetime in days, 1 to 90")
	cmd.Flags().StringVar(&grace, "grace", "24h", "how long the old key keeps working: a duration (90m, 48h) or days (3d), 0 to 7 days")
	return cmd
}

// parseGrace reads a Go duration or a whole number of days ("3d").
func parseGrace(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		d, err := strconv.Atoi(n)
		if err != nil {
			return 0, fmt.Errorf("%q: want a duration (48h) or days (2d)", s)
		}
		return time.Duration(d) * 24 * time.Hour, nil
	}
	if s == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q: want a duration (48h) or days (2d)", s)
	}
	return d, nil
}
