// Package insights is the `svc insights` command.
package insights

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

// InsightsOptions are the parsed flags of `svc insights`.
type InsightsOptions struct {
	IO     *iostreams.IOStreams
	Client func(context.Context, cmdutil.ClientOptions) (*svc.Client, error)

	List    cmdutil.ListFlags
	From    svc.Date
	To      svc.Date
	Summary bool
	// Freshness is --freshness: the last import instead of rows
	// (freshness.go).
	Freshness bool
	// GroupBy is --group-by; empty means total.
	GroupBy svc.GroupBy
	// Level is --level; empty means both levels, one request each (only
	// campaign with --group-by campaign).
	Level svc.Level
	// Answers are --sort, --top, --compare-from/--compare-to, --status and
	// --having (answers.go).
	Answers svc.SummaryAnswers
	Format  output.Format
}

// NewCmdInsights returns the insights command. runF, when not nil, runs
// instead of the command body (for flag tests).
func NewCmdInsights(f *cmdutil.Factory, runF func(*InsightsOptions) error) *cobra.Command {
	opts := &InsightsOptions{IO: f.IOStreams, Client: f.Client}
	var from, to, groupBy, level string
	var af answerFlags
	cmd := &cobra.Command{
		Use:   "insights",
		Short: "List the stored daily insight rows, or their totals",
		Long: `List the stored daily insight rows of your organization (API: GET /insights),
newest date first. Each row is at account level or at campaign level; the two
levels overlap and are never added together. Amounts are in the account currency
and are never added across currencies. Purchase data is "n/a" when the service
has no purchase evidence; it is never shown as 0.

Dates are UTC days (YYYY-MM-DD), both ends included, at most 90 days apart and
not in the future. Neither --from nor --to: the last 30 days. Only --from: up
to today. Only --to: the 30 days ending on --to.

--summary prints totals instead of rows, computed by the service in one
request per level (API: GET /insights/summary): every group has one currency
and one level, never more. Without --level, both levels are asked for and
printed together (account-level groups first within each currency);
--group-by total (the default), account, campaign (campaign level only), day,
week (ISO, Monday to Sunday) or month groups the rows within each currency.
Each group has its rows, the days with rows, spend, impressions, clicks, and
ctr (percent), cpc and cpm recomputed from the sums. Purchases and purchase
value are summed over the rows that have purchase evidence only, and the
table says how many they are when some rows have none: "49 (from 5 of 7
rows)"; n/a means no row of the group has any. (Before the service offered
summaries, svc read every row and showed n/a as soon as one row lacked
evidence; it still does so, per currency and level, against a service without
GET /insights/summary.) Reach is not totalled: daily reach does not add up.

--freshness prints when the insights were last imported, how many rows that
import changed and removed, and the days it changed (API: GET
/insights/freshness); a later import may restate recent days again.`,
		Example: `  svc insights
  svc insights --from 2026-11-01 --to 2026-11-19 --accountId acc_1
  svc insights --summary
  svc insights --freshness -o json
  svc insights --summary --level account --group-by account --from 2026-11-13 --to 2026-11-19
  svc insights --summary --level campaign --group-by week -o csv
  svc insights --summary --level campaign --group-by campaign --sort -spend --top 5
  svc insights --summary --level account --group-by account --from 2026-11-01 --to 2026-11-23 --compare-from 2026-10-01 --compare-to 2026-10-23
  svc insights --summary --level campaign --group-by campaign --status PAUSED,ARCHIVED --having spend>0
  svc insights --all -o csv > insights.csv`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.List.Check(cmd); err != nil {
				return err
			}
			for _, d := range []struct {
				name, val string
				dst       *svc.Date
			}{{"from", from, &opts.From}, {"to", to, &opts.To}, {"compare-from", af.compareFrom, &opts.Answers.CompareFrom},
				{"compare-to", af.compareTo, &opts.Answers.CompareTo}} {
				if d.val == "" {
					continue
				}
				v, err := svc.ParseDate(d.val)
				if err != nil {
					return cmdutil.FlagErrorf("--%s: %q is not a date in the form YYYY-MM-DD", d.name, d.val)
				}
				*d.dst = v
			}
			if err := opts.summaryFlags(cmd, groupBy, level); err != nil {
				return err
			}
			if err := opts.answerFlags(cmd, &af); err != nil {
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
			if opts.Freshness {
				return freshnessRun(cmd.Context(), opts)
			}
			return insightsRun(cmd.Context(), opts)
		},
	}
	cmdutil.AddListFlags(cmd, &opts.List)
	cmd.AddCommand(NewCmdSync(f, nil)) // sync.go
	cmd.Flags().StringVar(&from, "from", "", "first day, YYYY-MM-DD (UTC)")
	cmd.Flags().StringVar(&to, "to", "", "last day, YYYY-MM-DD (UTC)")
	cmd.Flags().BoolVar(&opts.Summary, "summary", false, "print totals (per currency, level and --group-by) computed by the service instead of the rows")
	cmd.Flags().BoolVar(&opts.Freshness, "freshness", false, "print when the insights were last imported and which days that import changed, instead of the rows")
	cmd.MarkFlagsMutuallyExclusive("freshness", "summary")
	cmd.Flags().StringVar(&groupBy, "group-by", "", "with --summary: total (default), account, campaign, day, week, month, account,day or campaign,day")
	cmd.Flags().StringVar(&level, "level", "", "with --summary: account or campaign (default: both, one request each)")
	af.add(cmd)
	_ = cmd.RegisterFlagCompletionFunc("group-by", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"total", "account", "campaign", "day", "week", "month", "account,day", "campaign,day"}, cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("level", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"account", "campaign"}, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func insightsRun(ctx context.Context, opts *InsightsOptions) error {
	prog := listing.NewProgress(opts.IO, opts.List.Quiet)
	co := opts.List.ClientOptions()
	co.Hooks = prog.Hooks()
	client, err := opts.Client(ctx, co)
	if err != nil {
		return err
	}
	withDates := func(lo svc.ListOptions) *svc.InsightListOptions {
		return &svc.InsightListOptions{ListOptions: lo, From: opts.From, To: opts.To}
	}
	page := func(ctx context.Context, lo svc.ListOptions) (*svc.InsightPage, error) {
		return client.Insights.List(ctx, withDates(lo))
	}
	src := listing.Source[svc.Insight]{
		Page: page,
		All: func(ctx context.Context, lo svc.ListOptions) iter.Seq2[svc.Row[svc.Insight], error] {
			return client.Insights.AllRaw(ctx, withDates(lo))
		},
		Table: func(ctx context.Context, rows []svc.Insight) []output.Column[svc.Insight] {
			return accountid.Table(ctx, opts.IO.ErrOut, client, opts.List.AccountID, rows,
				func(r svc.Insight) string { return r.PlatformAdAccountID }, page, Spec.Table)
		},
	}
	req := listing.Request{List: opts.List.ListOptions(), All: opts.List.All || opts.Summary}
	if !opts.Summary {
		return listing.Run(ctx, opts.IO, req, opts.Format, Spec, prog, src)
	}
	return summaryRun(ctx, opts, client, prog, src)
}

func date(i svc.Insight) string {
	if i.Date == nil {
		return output.None
	}
	return i.Date.String()
}

func csvDate(i svc.Insight) string {
	if i.Date == nil {
		return ""
	}
	return i.Date.String()
}

// purchaseData reports whether the row has purchase evidence.
func purchaseData(i svc.Insight) bool { return i.PurchaseMeasurement != svc.PurchaseUnavailable }

// Spec is how insight rows are printed; the table's ACCOUNT column shows the
// platform account id (the listing shows the account id: accountid.Table).
var Spec = output.Spec[svc.Insight]{
	Table: []output.Column[svc.Insight]{
		{Header: "DATE", Value: date},
		{Header: "LEVEL", Value: func(i svc.Insight) string { return string(i.Level()) }},
		{Header: "ACCOUNT", Value: func(i svc.Insight) string { return i.PlatformAdAccountID }},
		{Header: "CAMPAIGN", Value: func(i svc.Insight) string { return output.OrNone(i.CampaignID) }},
		{Header: "SPEND", Right: true, Value: func(i svc.Insight) string { return output.Money(i.Spend.String(), i.Account.Currency) }},
		{Header: "IMPRESSIONS", Right: true, Value: func(i svc.Insight) string { return output.Int(i.Impressions) }},
		{Header: "CLICKS", Right: true, Value: func(i svc.Insight) string { return output.Int(i.Clicks) }},
		{Header: "PURCHASES", Right: true, Value: func(i svc.Insight) string {
			if i.Purchases == nil || !purchaseData(i) {
				return output.NA
			}
			return output.Number(*i.Purchases)
		}},
		{Header: "VALUE", Right: true, Value: func(i svc.Insight) string {
			if i.PurchaseValue == nil || !purchaseData(i) {
				return output.NA
			}
			return output.Money(output.PadDecimals(output.Number(*i.PurchaseValue), 2), i.Account.Currency)
		}},
		{Header: "ROAS", Right: true, Value: func(i svc.Insight) string {
			if i.ROAS == nil || !purchaseData(i) {
				return output.NA
			}
			return output.Number(*i.ROAS)
		}},
	},
	// Every field of svc.Insight: the ones not named here follow (CSVColumns).
	CSV: output.CSVColumns([]output.Column[svc.Insight]{
		{Header: "id", Value: func(i svc.Insight) string { return i.ID }},
		{Header: "date", Value: csvDate},
		{Header: "level", Value: func(i svc.Insight) string { return string(i.Level()) }},
		{Header: "platformAdAccountId", Value: func(i svc.Insight) string { return i.PlatformAdAccountID }},
		{Header: "campaignId", Value: func(i svc.Insight) string { return output.CSVString(i.CampaignID) }},
		{Header: "currency", Value: func(i svc.Insight) string { return i.Account.Currency }},
		{Header: "timezone", Value: func(i svc.Insight) string { return i.Account.Timezone }},
		{Header: "spend", Value: func(i svc.Insight) string { return i.Spend.String() }},
		{Header: "impressions", Value: func(i svc.Insight) string { return output.Int(i.Impressions) }},
		{Header: "reach", Value: func(i svc.Insight) string { return output.Int(i.Reach) }},
		{Header: "clicks", Value: func(i svc.Insight) string { return output.Int(i.Clicks) }},
		{Header: "ctr", Value: func(i svc.Insight) string { return i.CTR.String() }},
		{Header: "cpc", Value: func(i svc.Insight) string { return i.CPC.String() }},
		{Header: "cpm", Value: func(i svc.Insight) string { return i.CPM.String() }},
		{Header: "purchaseMeasurement", Value: func(i svc.Insight) string { return string(i.PurchaseMeasurement) }},
		{Header: "purchases", Value: func(i svc.Insight) string { return output.CSVNumber(i.Purchases) }},
		{Header: "purchaseValue", Value: func(i svc.Insight) string { return output.CSVNumber(i.PurchaseValue) }},
		{Header: "roas", Value: func(i svc.Insight) string { return output.CSVNumber(i.ROAS) }},
		{Header: "attributionWindow", Value: func(i svc.Insight) string { return i.AttributionWindow }},
		{Header: "syncedAt", Value: func(i svc.Insight) string { return output.CSVTime(i.SyncedAt) }},
	}),
}
