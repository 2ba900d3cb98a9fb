// Package insights is the `svc insights` command.
package insights

import (
	"context"
	"encoding/json"
	"fmt"
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
	Format  output.Format
}

// NewCmdInsights returns the insights command. runF, when not nil, runs
// instead of the command body (for flag tests).
func NewCmdInsights(f *cmdutil.Factory, runF func(*InsightsOptions) error) *cobra.Command {
	opts := &InsightsOptions{IO: f.IOStreams, Client: f.Client}
	var from, to string
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

--summary reads every page of the range and prints totals per currency and
level (rows, spend, impressions, clicks, purchases, purchase value).`,
		Example: `  svc insights
  svc insights --from 2026-11-01 --to 2026-11-19 --accountId acc_1
  svc insights --summary
  svc insights --all -o csv > insights.csv`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.List.Check(cmd); err != nil {
				return err
			}
			for _, d := range []struct {
				name, val string
				dst       *svc.Date
			}{{"from", from, &opts.From}, {"to", to, &opts.To}} {
				if d.val == "" {
					continue
				}
				v, err := svc.ParseDate(d.val)
				if err != nil {
					return cmdutil.FlagErrorf("--%s: %q is not a date in the form YYYY-MM-DD", d.name, d.val)
				}
				*d.dst = v
			}
			format, err := output.ParseFormat(opts.List.Output, opts.IO.IsStdoutTTY())
			if err != nil {
				return cmdutil.FlagErrorWrap(err)
			}
			opts.Format = format
			if runF != nil {
				return runF(opts)
			}
			return insightsRun(cmd.Context(), opts)
		},
	}
	cmdutil.AddListFlags(cmd, &opts.List)
	cmd.Flags().StringVar(&from, "from", "", "first day, YYYY-MM-DD (UTC)")
	cmd.Flags().StringVar(&to, "to", "", "last day, YYYY-MM-DD (UTC)")
	cmd.Flags().BoolVar(&opts.Summary, "summary", false, "print totals per currency and level over every page instead of the rows")
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
	// Totals are computed as the rows stream in, from every row of the
	// range: when the read cannot finish, no totals are printed at all.
	var totals svc.InsightTotals
	rows := 0
	prog.Start(false)
	for row, err := range src.All(ctx, req.List) {
		if err != nil {
			prog.Done()
			return fmt.Errorf("no totals printed, since they would miss rows (%d rows read): %w", rows, err)
		}
		totals.Add(row.Value)
		rows++
	}
	prog.Done()
	if err := output.Print(opts.IO, opts.Format, prog.Meta(), totals.Summaries(), SummarySpec); err != nil {
		return err
	}
	fmt.Fprintln(opts.IO.ErrOut, "Totals per currency and level: amounts in different currencies, and account-level and campaign-level rows (which overlap), are never added together.")
	return nil
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
	CSV: []output.Column[svc.Insight]{
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
	},
}

// summaryJSON is the JSON form of a svc.InsightSummary; null means
// unavailable, never zero. Spend is a decimal string and purchases and
// purchaseValue are numbers, as in the API's insight rows.
type summaryJSON struct {
	Currency      string       `json:"currency"`
	Level         svc.Level    `json:"level"`
	Rows          int          `json:"rows"`
	Spend         svc.Decimal  `json:"spend"`
	Impressions   int64        `json:"impressions"`
	Clicks        int64        `json:"clicks"`
	Purchases     *json.Number `json:"purchases"`
	PurchaseValue *json.Number `json:"purchaseValue"`
}

// number returns d as a JSON number, as the API sends purchases and
// purchaseValue, or nil (null) when d is nil.
func number(d *svc.Decimal) *json.Number {
	if d == nil {
		return nil
	}
	n := json.Number(d.String())
	return &n
}

func naDecimal(d *svc.Decimal) string {
	if d == nil {
		return output.NA
	}
	return d.String()
}

// SummarySpec is how the totals of --summary are printed.
var SummarySpec = output.Spec[svc.InsightSummary]{
	Table: []output.Column[svc.InsightSummary]{
		{Header: "CURRENCY", Value: func(s svc.InsightSummary) string { return s.Currency }},
		{Header: "LEVEL", Value: func(s svc.InsightSummary) string { return string(s.Level) }},
		{Header: "ROWS", Right: true, Value: func(s svc.InsightSummary) string { return output.Int(int64(s.Rows)) }},
		{Header: "SPEND", Right: true, Value: func(s svc.InsightSummary) string { return output.Money(s.Spend.String(), s.Currency) }},
		{Header: "IMPRESSIONS", Right: true, Value: func(s svc.InsightSummary) string { return output.Int(s.Impressions) }},
		{Header: "CLICKS", Right: true, Value: func(s svc.InsightSummary) string { return output.Int(s.Clicks) }},
		{Header: "PURCHASES", Right: true, Value: func(s svc.InsightSummary) string { return naDecimal(s.Purchases) }},
		{Header: "VALUE", Right: true, Value: func(s svc.InsightSummary) string {
			if s.PurchaseValue == nil {
				return output.NA
			}
			return output.Money(output.PadDecimals(s.PurchaseValue.String(), 2), s.Currency)
		}},
	},
	CSV: []output.Column[svc.InsightSummary]{
		{Header: "currency", Value: func(s svc.InsightSummary) string { return s.Currency }},
		{Header: "level", Value: func(s svc.InsightSummary) string { return string(s.Level) }},
		{Header: "rows", Value: func(s svc.InsightSummary) string { return output.Int(int64(s.Rows)) }},
		{Header: "spend", Value: func(s svc.InsightSummary) string { return s.Spend.String() }},
		{Header: "impressions", Value: func(s svc.InsightSummary) string { return output.Int(s.Impressions) }},
		{Header: "clicks", Value: func(s svc.InsightSummary) string { return output.Int(s.Clicks) }},
		{Header: "purchases", Value: func(s svc.InsightSummary) string { return output.CSVDecimal(s.Purchases) }},
		{Header: "purchaseValue", Value: func(s svc.InsightSummary) string { return output.CSVDecimal(s.PurchaseValue) }},
	},
	JSON: func(s svc.InsightSummary) any {
		return summaryJSON{
			Currency: s.Currency, Level: s.Level, Rows: s.Rows, Spend: s.Spend,
			Impressions: s.Impressions, Clicks: s.Clicks, Purchases: number(s.Purchases), PurchaseValue: number(s.PurchaseValue),
		}
	},
}
