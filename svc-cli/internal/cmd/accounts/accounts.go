// Package accounts is the `svc accounts` command.
package accounts

import (
	"context"
	"iter"
	"strconv"

	"github.com/spf13/cobra"

	svc "github.com/adsnap/svc/sdk-go"

	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
	"github.com/adsnap/svc/svc-cli/internal/iostreams"
	"github.com/adsnap/svc/svc-cli/internal/listing"
	"github.com/adsnap/svc/svc-cli/internal/output"
)

// AccountsOptions are the parsed flags of `svc accounts`.
type AccountsOptions struct {
	IO     *iostreams.IOStreams
	Client func(context.Context, cmdutil.ClientOptions) (*svc.Client, error)

	List   cmdutil.ListFlags
	Format output.Format
}

// NewCmdAccounts returns the accounts command. runF, when not nil, runs
// instead of the command body (for flag tests).
func NewCmdAccounts(f *cmdutil.Factory, runF func(*AccountsOptions) error) *cobra.Command {
	opts := &AccountsOptions{IO: f.IOStreams, Client: f.Client}
	cmd := &cobra.Command{
		Use:   "accounts",
		Short: "List the stored snapshots of your ad accounts",
		Long: `List the stored snapshots of the ad accounts of your organization (API: GET /accounts),
ordered by id. The data is a stored snapshot that may be stale; the first line
of output says how fresh it is.`,
		Example: `  svc accounts
  svc accounts --limit 10 -o csv > accounts.csv
  svc accounts --all -o json`,
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
			return accountsRun(cmd.Context(), opts)
		},
	}
	cmdutil.AddListFlags(cmd, &opts.List)
	return cmd
}

func accountsRun(ctx context.Context, opts *AccountsOptions) error {
	prog := listing.NewProgress(opts.IO, opts.List.Quiet)
	co := opts.List.ClientOptions()
	co.Hooks = prog.Hooks()
	client, err := opts.Client(ctx, co)
	if err != nil {
		return err
	}
	req := listing.Request{List: opts.List.ListOptions(), All: opts.List.All}
	return listing.Run(ctx, opts.IO, req, opts.Format, Spec, prog, listing.Source[svc.Account]{
		Page: func(ctx context.Context, lo svc.ListOptions) (*svc.AccountPage, error) {
			return client.Accounts.List(ctx, &svc.AccountListOptions{ListOptions: lo})
		},
		All: func(ctx context.Context, lo svc.ListOptions) iter.Seq2[svc.Row[svc.Account], error] {
			return client.Accounts.AllRaw(ctx, &svc.AccountListOptions{ListOptions: lo})
		},
	})
}

// Spec is how accounts are printed.
var Spec = output.Spec[svc.Account]{
	Table: []output.Column[svc.Account]{
		{Header: "ID", Value: func(a svc.Account) string { return a.ID }},
		{Header: "NAME", Value: func(a svc.Account) string { return a.AccountName }},
		{Header: "CURRENCY", Value: func(a svc.Account) string { return a.Currency }},
		{Header: "TIMEZONE", Value: func(a svc.Account) string { return a.Timezone }},
		{Header: "ACTIVE", Value: func(a svc.Account) string { return output.YesNo(a.IsActive) }},
		{Header: "LAST SYNC", Value: func(a svc.Account) string { return output.Time(a.LastSyncAt) }},
	},
	// Every field of svc.Account: the ones not named here follow (CSVColumns).
	CSV: output.CSVColumns([]output.Column[svc.Account]{
		{Header: "id", Value: func(a svc.Account) string { return a.ID }},
		{Header: "accountName", Value: func(a svc.Account) string { return a.AccountName }},
		{Header: "currency", Value: func(a svc.Account) string { return a.Currency }},
		{Header: "timezone", Value: func(a svc.Account) string { return a.Timezone }},
		{Header: "isActive", Value: func(a svc.Account) string { return strconv.FormatBool(a.IsActive) }},
		{Header: "lastSyncAt", Value: func(a svc.Account) string { return output.CSVTime(a.LastSyncAt) }},
	}),
}
