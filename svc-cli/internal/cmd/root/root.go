// Package root is the `svc` command tree.
package root

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/adsnap/svc/svc-cli/internal/build"
	"github.com/adsnap/svc/svc-cli/internal/cmd/accounts"
	"github.com/adsnap/svc/svc-cli/internal/cmd/campaigns"
	"github.com/adsnap/svc/svc-cli/internal/cmd/completion"
	"github.com/adsnap/svc/svc-cli/internal/cmd/insights"
	"github.com/adsnap/svc/svc-cli/internal/cmd/mcp"
	"github.com/adsnap/svc/svc-cli/internal/cmd/verify"
	"github.com/adsnap/svc/svc-cli/internal/cmd/version"
	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
)

const rootHelp = `svc reads the stored advertising snapshots of your organization (ad accounts,
campaigns and daily insights) from the Snapshot Developer Service. Every
answer is a stored snapshot that may be stale, never live platform data; the
first line of output says how fresh it is ("data as of"). svc only reads.

Key: set SVC_API_KEY, or pass --key-stdin to read the key from the first line
of standard input. No flag takes the key itself, and svc never writes it
anywhere. A malformed key is refused before any request is made.

Site: %s (built in), or SVC_SITE_URL: https, or http to a
loopback host only. Requests go only there, redirects are refused, and each
request times out after 15 seconds. On 429, wait 60 seconds or pass --wait.

Output (list commands): -o table|json|jsonl|csv; the default is a table on a
terminal and JSON otherwise. json is one array of rows (also with --all),
jsonl one row per line, csv a header and rows. The provenance line ("Stored
snapshot (not live) · data as of …") comes first: before a table on standard
output, on standard error for json, jsonl and csv. NO_COLOR turns color off.

Environment: SVC_API_KEY, SVC_SITE_URL, NO_COLOR.

`

// NewCmdRoot returns the svc command with every subcommand.
func NewCmdRoot(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:           "svc",
		Short:         "Read stored advertising snapshots: accounts, campaigns, insights",
		Long:          fmt.Sprintf(rootHelp, build.SiteURL()) + cmdutil.ExitCodesHelp,
		Version:       build.Version(),
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
				if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
					msg += "; did you mean " + strings.Join(s, " or ") + "?"
				}
				return cmdutil.FlagErrorf("%s", msg)
			}
			return cmd.Help()
		},
	}
	cmd.SetVersionTemplate(version.Format())
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return cmdutil.FlagErrorWrap(err) })
	cmd.CompletionOptions.DisableDefaultCmd = true
	cmd.AddCommand(
		accounts.NewCmdAccounts(f, nil),
		campaigns.NewCmdCampaigns(f, nil),
		insights.NewCmdInsights(f, nil),
		mcp.NewCmdMCP(f, nil),
		verify.NewCmdVerify(f, nil),
		version.NewCmdVersion(f),
		completion.NewCmdCompletion(f),
	)
	return cmd
}
