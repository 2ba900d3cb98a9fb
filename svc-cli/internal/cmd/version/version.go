// Package version is the `svc version` command.
package version

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/adsnap/svc/svc-cli/internal/build"
	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
)

// NewCmdVersion returns the version command.
func NewCmdVersion(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date of svc",
		Args:  cmdutil.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprint(f.IOStreams.Out, Format())
			return err
		},
	}
}

// Format returns the version text, also shown by `svc --version`.
func Format() string {
	return fmt.Sprintf("svc %s (commit %s, built %s)\nsite: %s (built in; SVC_SITE_URL overrides)\n",
		build.Version(), build.Commit(), build.Date(), build.SiteURL())
}
