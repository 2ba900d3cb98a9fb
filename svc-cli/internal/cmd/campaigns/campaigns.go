// Package campaigns is the `svc campaigns` command.
package campaigns

import (
	"context"
	"iter"

	"github.com/spf13/cobra"

	svc "github.com/adsnap/svc/sdk-go"

	"github.com/adsnap/svc/svc-cli/internal/accountid"
	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
	"github.com/adsnap/svc/svc-cli/internal/iostreams"
	"github.com/adsnap/svc/svc-cli/internal/listing"
	"github.com/adsnap/svc/svc-cli/internal/output"
)

// CampaignsOptions are the parsed flags of `svc campaigns`.
type CampaignsOptions struct {
	IO     *iostreams.IOStreams
	Client func(context.Context, cmdutil.ClientOptions) (*svc.Client, error)

	List   cmdutil.ListFlags
	Format output.Format
}

// NewCmdCampaigns returns the campaigns command. runF, when not nil, runs
// instead of the command body (for flag tests).
func NewCmdCampaigns(f *cmdutil.Factory, runF func(*CampaignsOptions) error) *cobra.Command {
	opts := &CampaignsOptions{IO: f.IOStreams, Client: f.Client}
	cmd := &cobra.Command{
		Use:   "campaigns",
		Short: "List the stored snapshots of your campaigns",
		Long: `List the stored snapshots of the campaigns of your organization (API: GET /campaigns),
ordered by id. Budgets are shown in the account currency. The data is a stored
snapshot that may be stale; the first line of output says how fresh it is.`,
		Example: `  svc campaigns
  svc campaigns --accountId acc_1
  svc campaigns --all -o jsonl`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.List.Check(cmd); err != nil {
				return err
			}
			format, err := output.ParseFormat(opts.List.Output, opts.IO.IsStdoutTTY())
			if err != nil {
				return cmdutil.FlagErrorWrap(err)
			}
			opts.Format = format
			if runF != nil {
				return runF(opts)
			}
			return campaignsRun(cmd.Context(), opts)
		},
	}
	cmdutil.AddListFlags(cmd, &opts.List)
	return cmd
}

func campaignsRun(ctx context.Context, opts *CampaignsOptions) error {
	prog := listing.NewProgress(opts.IO, opts.List.Quiet)
	co := opts.List.ClientOptions()
	co.Hooks = prog.Hooks()
	client, err := opts.Client(ctx, co)
	if err != nil {
		return err
	}
	page := func(ctx context.Context, lo svc.ListOptions) (*svc.CampaignPage, error) {
		return client.Campaigns.List(ctx, &svc.CampaignListOptions{ListOptions: lo})
	}
	req := listing.Request{List: opts.List.ListOptions(), All: opts.List.All}
	return listing.Run(ctx, opts.IO, req, opts.Format, Spec, prog, listing.Source[svc.Campaign]{
		Page: page,
		All: func(ctx context.Context, lo svc.ListOptions) iter.Seq2[svc.Row[svc.Campaign], error] {
			return client.Campaigns.AllRaw(ctx, &svc.CampaignListOptions{ListOptions: lo})
		},
		Table: func(ctx context.Context, rows []svc.Campaign) []output.Column[svc.Campaign] {
			return accountid.Table(ctx, opts.IO.ErrOut, client, opts.List.AccountID, rows,
				func(c svc.Campaign) string { return c.PlatformAdAccountID }, page, Spec.Table)
		},
	})
}

// Spec is how campaigns are printed; the table's ACCOUNT column shows the
// platform account id (the listing shows the account id: accountid.Table).
var Spec = output.Spec[svc.Campaign]{
	Table: []output.Column[svc.Campaign]{
		{Header: "ID", Value: func(c svc.Campaign) string { return c.ID }},
		{Header: "NAME", Value: func(c svc.Campaign) string { return c.Name }},
		{Header: "STATUS", Value: func(c svc.Campaign) string { return c.Status }},
		{Header: "DAILY BUDGET", Right: true, Value: func(c svc.Campaign) string {
			return output.DecimalMoney(c.DailyBudget, c.Account.Currency)
		}},
		{Header: "LIFETIME BUDGET", Right: true, Value: func(c svc.Campaign) string {
			return output.DecimalMoney(c.LifetimeBudget, c.Account.Currency)
		}},
		{Header: "OBJECTIVE", Value: func(c svc.Campaign) string { return c.Objective }},
		{Header: "ACCOUNT", Value: func(c svc.Campaign) string { return c.PlatformAdAccountID }},
	},
	// Every field of svc.Campaign: the ones not named here follow (CSVColumns).
	CSV: output.CSVColumns([]output.Column[svc.Campaign]{
		{Header: "id", Value: func(c svc.Campaign) string { return c.ID }},
		{Header: "name", Value: func(c svc.Campaign) string { return c.Name }},
		{Header: "status", Value: func(c svc.Campaign) string { return c.Status }},
		{Header: "effectiveStatus", Value: func(c svc.Campaign) string { return output.CSVString(c.EffectiveStatus) }},
		{Header: "objective", Value: func(c svc.Campaign) string { return c.Objective }},
		{Header: "dailyBudget", Value: func(c svc.Campaign) string { return output.CSVDecimal(c.DailyBudget) }},
		{Header: "lifetimeBudget", Value: func(c svc.Campaign) string { return output.CSVDecimal(c.LifetimeBudget) }},
		{Header: "currency", Value: func(c svc.Campaign) string { return c.Account.Currency }},
		{Header: "timezone", Value: func(c svc.Campaign) string { return c.Account.Timezone }},
		{Header: "platformAdAccountId", Value: func(c svc.Campaign) string { return c.PlatformAdAccountID }},
		{Header: "syncedAt", Value: func(c svc.Campaign) string { return output.CSVTime(c.SyncedAt) }},
	}),
}
