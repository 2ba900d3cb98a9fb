package insights

import (
	"github.com/spf13/cobra"

	svc "github.com/adsnap/svc/sdk-go"

	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
	"github.com/adsnap/svc/svc-cli/internal/output"
)

// answerFlags are the flags of the summary's answers (issue 46): --sort,
// --top, --compare-from, --compare-to, --status and --having.
type answerFlags struct {
	sort, compareFrom, compareTo string
	top                          int
	status, having               []string
}

func (af *answerFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&af.sort, "sort", "", "with --summary: rank by spend, impressions, clicks, purchases, purchaseValue, ctr, cpc, cpm or roas (-spend: descending), within each currency")
	f.IntVar(&af.top, "top", 0, "with --summary and --sort: keep the first N groups of each currency")
	f.StringVar(&af.compareFrom, "compare-from", "", "with --summary: first day of a second period to compare with")
	f.StringVar(&af.compareTo, "compare-to", "", "with --summary: last day of the second period")
	f.StringSliceVar(&af.status, "status", nil, "with --summary: keep campaigns (or accounts) with one of these statuses, e.g. PAUSED,ARCHIVED")
	f.StringSliceVar(&af.having, "having", nil, "with --summary: keep groups meeting every condition, e.g. clicks=0,impressions>0")
}

// answerFlags checks that the answers come with --summary and fills opts
// (the dates are parsed with --from and --to).
func (opts *InsightsOptions) answerFlags(cmd *cobra.Command, af *answerFlags) error {
	for _, name := range []string{"sort", "top", "compare-from", "compare-to", "status", "having"} {
		if !opts.Summary && cmd.Flags().Changed(name) {
			return cmdutil.FlagErrorf("--%s needs --summary", name)
		}
	}
	opts.Answers.Sort, opts.Answers.Top = af.sort, af.top
	opts.Answers.Status, opts.Answers.Having = af.status, af.having
	return nil
}

// answerSpec adds to spec the names and status of groups by account or
// campaign and, with a comparison, the previous spend and its change; CSV
// gets every field of the answers, named as in the API.
func answerSpec(spec output.Spec[svc.InsightSummaryGroup], opts *InsightsOptions) output.Spec[svc.InsightSummaryGroup] {
	type col = output.Column[svc.InsightSummaryGroup]
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	dec := func(d *svc.Decimal) string {
		if d == nil {
			return ""
		}
		return d.String()
	}
	named := opts.GroupBy != "" && opts.GroupBy != svc.GroupByTotal && opts.GroupBy != svc.GroupByDay &&
		opts.GroupBy != svc.GroupByWeek && opts.GroupBy != svc.GroupByMonth
	table := spec.Table
	if named {
		name := col{Header: "NAME", Value: func(x svc.InsightSummaryGroup) string {
			if x.CampaignName != nil {
				return *x.CampaignName
			}
			return str(x.AccountName)
		}}
		table = append(append(append([]col{}, table[:2]...), name, col{Header: "STATUS", Value: func(x svc.InsightSummaryGroup) string { return str(x.Status) }}), table[2:]...)
	}
	if !opts.Answers.CompareFrom.IsZero() {
		table = append(table,
			col{Header: "PREV SPEND", Right: true, Value: func(x svc.InsightSummaryGroup) string {
				if x.Previous == nil {
					return output.None
				}
				return output.Money(x.Previous.Spend.String(), x.Currency)
			}},
			col{Header: "CHANGE", Right: true, Value: func(x svc.InsightSummaryGroup) string {
				if x.Change == nil || x.Change.SpendRelative == nil {
					return output.None
				}
				return x.Change.SpendRelative.String()
			}})
	}
	csv := append([]col{}, spec.CSV...)
	csv = append(csv,
		col{Header: "accountName", Value: func(x svc.InsightSummaryGroup) string { return str(x.AccountName) }},
		col{Header: "campaignName", Value: func(x svc.InsightSummaryGroup) string { return str(x.CampaignName) }},
		col{Header: "status", Value: func(x svc.InsightSummaryGroup) string { return str(x.Status) }})
	prev := func(name string, v func(p *svc.SummaryFigures) string) col {
		return col{Header: "previous." + name, Value: func(x svc.InsightSummaryGroup) string {
			if x.Previous == nil {
				return ""
			}
			return v(x.Previous)
		}}
	}
	csv = append(csv,
		prev("rows", func(p *svc.SummaryFigures) string { return output.Int(int64(p.Rows)) }),
		prev("days", func(p *svc.SummaryFigures) string { return output.Int(int64(p.Days)) }),
		prev("spend", func(p *svc.SummaryFigures) string { return p.Spend.String() }),
		prev("impressions", func(p *svc.SummaryFigures) string { return output.Int(p.Impressions) }),
		prev("clicks", func(p *svc.SummaryFigures) string { return output.Int(p.Clicks) }),
		prev("ctr", func(p *svc.SummaryFigures) string { return dec(p.CTR) }),
		prev("cpc", func(p *svc.SummaryFigures) string { return dec(p.CPC) }),
		prev("cpm", func(p *svc.SummaryFigures) string { return dec(p.CPM) }),
		prev("purchaseRows", func(p *svc.SummaryFigures) string { return output.Int(int64(p.PurchaseRows)) }),
		prev("purchases", func(p *svc.SummaryFigures) string { return dec(p.Purchases) }),
		prev("purchaseValueRows", func(p *svc.SummaryFigures) string { return output.Int(int64(p.PurchaseValueRows)) }),
		prev("purchaseValue", func(p *svc.SummaryFigures) string { return dec(p.PurchaseValue) }),
		prev("roas", func(p *svc.SummaryFigures) string { return dec(p.ROAS) }))
	change := func(name string, v func(c *svc.SummaryChange) *svc.Decimal) col {
		return col{Header: "change." + name, Value: func(x svc.InsightSummaryGroup) string {
			if x.Change == nil {
				return ""
			}
			return dec(v(x.Change))
		}}
	}
	for _, f := range []struct {
		name string
		abs  func(c *svc.SummaryChange) *svc.Decimal
		rel  func(c *svc.SummaryChange) *svc.Decimal
	}{
		{"spend", func(c *svc.SummaryChange) *svc.Decimal { return c.Spend }, func(c *svc.SummaryChange) *svc.Decimal { return c.SpendRelative }},
		{"impressions", func(c *svc.SummaryChange) *svc.Decimal { return c.Impressions }, func(c *svc.SummaryChange) *svc.Decimal { return c.ImpressionsRelative }},
		{"clicks", func(c *svc.SummaryChange) *svc.Decimal { return c.Clicks }, func(c *svc.SummaryChange) *svc.Decimal { return c.ClicksRelative }},
		{"purchases", func(c *svc.SummaryChange) *svc.Decimal { return c.Purchases }, func(c *svc.SummaryChange) *svc.Decimal { return c.PurchasesRelative }},
		{"purchaseValue", func(c *svc.SummaryChange) *svc.Decimal { return c.PurchaseValue }, func(c *svc.SummaryChange) *svc.Decimal { return c.PurchaseValueRelative }},
		{"ctr", func(c *svc.SummaryChange) *svc.Decimal { return c.CTR }, func(c *svc.SummaryChange) *svc.Decimal { return c.CTRRelative }},
		{"cpc", func(c *svc.SummaryChange) *svc.Decimal { return c.CPC }, func(c *svc.SummaryChange) *svc.Decimal { return c.CPCRelative }},
		{"cpm", func(c *svc.SummaryChange) *svc.Decimal { return c.CPM }, func(c *svc.SummaryChange) *svc.Decimal { return c.CPMRelative }},
		{"roas", func(c *svc.SummaryChange) *svc.Decimal { return c.ROAS }, func(c *svc.SummaryChange) *svc.Decimal { return c.ROASRelative }},
	} {
		csv = append(csv, change(f.name, f.abs), change(f.name+"Relative", f.rel))
	}
	spec.Table, spec.CSV = table, csv
	return spec
}
