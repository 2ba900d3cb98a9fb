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
of standard input (on a terminal, paste it: it is not shown). No flag takes
the key itself, and svc never writes it anywhere. A malformed key is refused
before any request is made.

Site: %s (built in), or SVC_SITE_URL: https, or http to a
loopback host only. Requests go only there, redirects are refused, and each
request times out after 15 seconds. On 429, wait 60 seconds or pass --wait.

Limits: the service allows each key 60 requests a minute (each organization
120, each IP 180, unless its RateLimit-Policy header says otherwise). Each
number is also the burst: a key unused for a minute gets 60 answers at once,
then one a second, so at most 119 in any rolling minute. --all and --summary
use what is left of the burst, then space their requests one interval apart
(one a second at 60 a minute) as the service's RateLimit headers say, so they
do not meet a 429; should one come, they (and any command with --wait) wait
the 60 seconds it asks, plus up to 5 s of jitter, and retry, up to 3 times.

Output (list commands): -o table|json|jsonl|csv; the default is a table on a
terminal and JSON otherwise. json is one array of rows (also with --all),
jsonl one row per line, csv a header and rows. The provenance line ("Stored
snapshot (not live) · data as of …") comes first: before a table on standard
output, on standard error for json, jsonl and csv. NO_COLOR turns color off.
In csv, a cell that begins with =, +, -, @, a tab or a carriage return is
written with a leading ' so that a spreadsheet shows it as text and does not
run it as a formula (OWASP's CSV-injection rule); a number such as -12.50 is
left as it is. json and jsonl keep the exact stored values.

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
