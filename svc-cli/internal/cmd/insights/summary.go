package insights

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	svc "github.com/adsnap/svc/sdk-go"

	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
	"github.com/adsnap/svc/svc-cli/internal/listing"
	"github.com/adsnap/svc/svc-cli/internal/output"
)

// summaryFlags checks --group-by and --level and fills opts.
func (opts *InsightsOptions) summaryFlags(cmd *cobra.Command, groupBy, level string) error {
	if !opts.Summary && (cmd.Flags().Changed("group-by") || cmd.Flags().Changed("level")) {
		return cmdutil.FlagErrorf("--group-by and --level need --summary")
	}
	if groupBy != "" {
		g := svc.GroupBy(groupBy)
		if !slices.Contains(svc.GroupBys, g) {
			return cmdutil.FlagErrorf("--group-by: %q is not one of total, account, campaign, day, week, month, account,day, campaign,day", groupBy)
		}
		opts.GroupBy = g
	}
	switch l := svc.Level(level); l {
	case "":
	case svc.LevelAccount, svc.LevelCampaign:
		opts.Level = l
	default:
		return cmdutil.FlagErrorf("--level: %q is neither account nor campaign", level)
	}
	if (opts.GroupBy == svc.GroupByCampaign || opts.GroupBy == svc.GroupByCampaignDay) && opts.Level == svc.LevelAccount {
		return cmdutil.FlagErrorf("--group-by campaign needs --level campaign: account-level rows have no campaign")
	}
	return nil
}

// levels are the levels --summary asks for, one request each.
func (opts *InsightsOptions) levels() []svc.Level {
	switch {
	case opts.Level != "":
		return []svc.Level{opts.Level}
	case opts.GroupBy == svc.GroupByCampaign || opts.GroupBy == svc.GroupByCampaignDay:
		return []svc.Level{svc.LevelCampaign}
	}
	return []svc.Level{svc.LevelAccount, svc.LevelCampaign}
}

// summaryNote is printed on standard error after the totals.
const summaryNote = "Totals per currency and level: amounts in different currencies, and account-level and campaign-level rows (which overlap), are never added together."

// summaryRun prints the groups of GET /insights/summary for each level,
// every page of them, together: by currency, then level (account first),
// then in the service's order. When the service has no such endpoint (404
// before any group, from a svc-api older than issue 34), it falls back to
// totalling every row itself, per currency and level, as svc did before.
func summaryRun(ctx context.Context, opts *InsightsOptions, client *svc.Client, prog *listing.Progress, src listing.Source[svc.Insight]) error {
	var groups []svc.InsightSummaryGroup
	prog.Start(false)
	for _, level := range opts.levels() {
		so := &svc.InsightSummaryOptions{ListOptions: opts.List.ListOptions(), From: opts.From, To: opts.To, Level: level, GroupBy: opts.GroupBy,
			SummaryAnswers: opts.Answers}
		for g, err := range client.Insights.SummaryAll(ctx, so) {
			if err != nil {
				prog.Done()
				if len(groups) == 0 && svc.IsNotFound(err) {
					return legacySummaryRun(ctx, opts, prog, src, err)
				}
				return fmt.Errorf("no totals printed, since they would miss groups (%d groups read): %w", len(groups), err)
			}
			groups = append(groups, g)
		}
	}
	prog.Done()
	slices.SortStableFunc(groups, func(a, b svc.InsightSummaryGroup) int {
		return cmp.Or(strings.Compare(a.Currency, b.Currency), strings.Compare(string(a.Level), string(b.Level)))
	})
	if err := output.Print(opts.IO, opts.Format, prog.Meta(), groups, answerSpec(GroupSpec(opts.GroupBy), opts)); err != nil {
		return err
	}
	fmt.Fprintln(opts.IO.ErrOut, summaryNote)
	return nil
}

// legacySummaryRun totals every row of the range on the client (svc's
// --summary before GET /insights/summary), for a service that answered 404
// to the summary: only without --group-by (or with total). An accountId
// outside the organization fails here with the list's 404. Remove it once
// no supported svc-api lacks the endpoint.
func legacySummaryRun(ctx context.Context, opts *InsightsOptions, prog *listing.Progress, src listing.Source[svc.Insight], notFound error) error {
	if opts.GroupBy != "" && opts.GroupBy != svc.GroupByTotal {
		// Not wrapped: the message, not the 404's, says what to do.
		return fmt.Errorf("--group-by %s needs the service's GET /insights/summary, which it does not offer (an older version: %v); without --group-by, svc totals every row itself", opts.GroupBy, notFound)
	}
	fmt.Fprintln(opts.IO.ErrOut, "The service does not offer GET /insights/summary (an older version): reading every row to total them here, per currency and level; purchases are n/a when any row of a group lacks purchase evidence.")
	// Totals are computed as the rows stream in, from every row of the
	// range: when the read cannot finish, no totals are printed at all.
	//lint:ignore SA1019 the fallback for a service without the endpoint is the deprecated client-side code.
	var totals svc.InsightTotals
	rows := 0
	prog.Start(false)
	for row, err := range src.All(ctx, opts.List.ListOptions()) {
		if err != nil {
			prog.Done()
			return fmt.Errorf("no totals printed, since they would miss rows (%d rows read): %w", rows, err)
		}
		totals.Add(row.Value)
		rows++
	}
	prog.Done()
	sums := slices.DeleteFunc(totals.Summaries(), func(s svc.InsightSummary) bool {
		return opts.Level != "" && s.Level != opts.Level
	})
	if err := output.Print(opts.IO, opts.Format, prog.Meta(), sums, LegacySummarySpec); err != nil {
		return err
	}
	fmt.Fprintln(opts.IO.ErrOut, summaryNote)
	return nil
}

// evidence is a purchase figure with the rows it covers: "49" when every
// row of the group has it, "49 (from 5 of 7 rows)" when some have not, n/a
// when none has.
func evidence(figure string, covered, rows int) string {
	switch {
	case covered == 0 || figure == "":
		return output.NA
	case covered < rows:
		return fmt.Sprintf("%s (from %d of %d rows)", figure, covered, rows)
	}
	return figure
}

func decimalText(d *svc.Decimal) string {
	if d == nil {
		return ""
	}
	return d.String()
}

func dateText(d *svc.Date) string {
	if d == nil {
		return ""
	}
	return d.String()
}

// period is the table's PERIOD cell: the day, or first..last day.
func period(g svc.InsightSummaryGroup) string {
	switch {
	case g.PeriodStart == nil:
		return output.None
	case g.PeriodEnd == nil || *g.PeriodEnd == *g.PeriodStart:
		return g.PeriodStart.String()
	}
	return g.PeriodStart.String() + ".." + g.PeriodEnd.String()
}

// GroupSpec is how the groups of --summary are printed: the table shows the
// group's keys that groupBy has, CSV every field of the API's group (empty
// for null), json and jsonl the groups as the API sends them.
func GroupSpec(groupBy svc.GroupBy) output.Spec[svc.InsightSummaryGroup] {
	type col = output.Column[svc.InsightSummaryGroup]
	table := []col{
		{Header: "CURRENCY", Value: func(x svc.InsightSummaryGroup) string { return x.Currency }},
		{Header: "LEVEL", Value: func(x svc.InsightSummaryGroup) string { return string(x.Level) }},
	}
	byCampaign := groupBy == svc.GroupByCampaign || groupBy == svc.GroupByCampaignDay
	if byCampaign || groupBy == svc.GroupByAccount || groupBy == svc.GroupByAccountDay {
		table = append(table, col{Header: "ACCOUNT", Value: func(x svc.InsightSummaryGroup) string { return output.OrNone(x.AccountID) }})
	}
	if byCampaign {
		table = append(table, col{Header: "CAMPAIGN", Value: func(x svc.InsightSummaryGroup) string { return output.OrNone(x.CampaignID) }})
	}
	if groupBy == svc.GroupByDay || groupBy == svc.GroupByWeek || groupBy == svc.GroupByMonth || groupBy == svc.GroupByAccountDay || groupBy == svc.GroupByCampaignDay {
		table = append(table, col{Header: "PERIOD", Value: period})
	}
	ratio := func(d *svc.Decimal, unit string) string {
		if d == nil {
			return output.None
		}
		return d.String() + unit
	}
	table = append(table,
		col{Header: "ROWS", Right: true, Value: func(x svc.InsightSummaryGroup) string { return output.Int(int64(x.Rows)) }},
		col{Header: "DAYS", Right: true, Value: func(x svc.InsightSummaryGroup) string { return output.Int(int64(x.Days)) }},
		col{Header: "SPEND", Right: true, Value: func(x svc.InsightSummaryGroup) string { return output.Money(x.Spend.String(), x.Currency) }},
		col{Header: "IMPRESSIONS", Right: true, Value: func(x svc.InsightSummaryGroup) string { return output.Int(x.Impressions) }},
		col{Header: "CLICKS", Right: true, Value: func(x svc.InsightSummaryGroup) string { return output.Int(x.Clicks) }},
		col{Header: "CTR", Right: true, Value: func(x svc.InsightSummaryGroup) string { return ratio(x.CTR, "%") }},
		col{Header: "CPC", Right: true, Value: func(x svc.InsightSummaryGroup) string { return ratio(x.CPC, " "+x.Currency) }},
		col{Header: "CPM", Right: true, Value: func(x svc.InsightSummaryGroup) string { return ratio(x.CPM, " "+x.Currency) }},
		col{Header: "PURCHASES", Right: true, Value: func(x svc.InsightSummaryGroup) string {
			return evidence(decimalText(x.Purchases), x.PurchaseRows, x.Rows)
		}},
		col{Header: "VALUE", Right: true, Value: func(x svc.InsightSummaryGroup) string {
			v := ""
			if x.PurchaseValue != nil {
				v = output.Money(output.PadDecimals(x.PurchaseValue.String(), 2), x.Currency)
			}
			return evidence(v, x.PurchaseValueRows, x.Rows)
		}},
		col{Header: "ROAS", Right: true, Value: func(x svc.InsightSummaryGroup) string {
			if x.ROAS == nil {
				return output.NA
			}
			return x.ROAS.String()
		}},
	)
	return output.Spec[svc.InsightSummaryGroup]{Table: table, CSV: groupCSV}
}

// groupCSV are the CSV columns of --summary: every field of the API's
// group, in its order, named as in the API (e2e checks them against
// openapi.yaml).
var groupCSV = []output.Column[svc.InsightSummaryGroup]{
	{Header: "level", Value: func(x svc.InsightSummaryGroup) string { return string(x.Level) }},
	{Header: "currency", Value: func(x svc.InsightSummaryGroup) string { return x.Currency }},
	{Header: "accountId", Value: func(x svc.InsightSummaryGroup) string { return output.CSVString(x.AccountID) }},
	{Header: "campaignId", Value: func(x svc.InsightSummaryGroup) string { return output.CSVString(x.CampaignID) }},
	{Header: "periodStart", Value: func(x svc.InsightSummaryGroup) string { return dateText(x.PeriodStart) }},
	{Header: "periodEnd", Value: func(x svc.InsightSummaryGroup) string { return dateText(x.PeriodEnd) }},
	{Header: "rows", Value: func(x svc.InsightSummaryGroup) string { return output.Int(int64(x.Rows)) }},
	{Header: "days", Value: func(x svc.InsightSummaryGroup) string { return output.Int(int64(x.Days)) }},
	{Header: "spend", Value: func(x svc.InsightSummaryGroup) string { return x.Spend.String() }},
	{Header: "impressions", Value: func(x svc.InsightSummaryGroup) string { return output.Int(x.Impressions) }},
	{Header: "clicks", Value: func(x svc.InsightSummaryGroup) string { return output.Int(x.Clicks) }},
	{Header: "ctr", Value: func(x svc.InsightSummaryGroup) string { return decimalText(x.CTR) }},
	{Header: "cpc", Value: func(x svc.InsightSummaryGroup) string { return decimalText(x.CPC) }},
	{Header: "cpm", Value: func(x svc.InsightSummaryGroup) string { return decimalText(x.CPM) }},
	{Header: "purchaseRows", Value: func(x svc.InsightSummaryGroup) string { return output.Int(int64(x.PurchaseRows)) }},
	{Header: "purchases", Value: func(x svc.InsightSummaryGroup) string { return decimalText(x.Purchases) }},
	{Header: "purchaseValueRows", Value: func(x svc.InsightSummaryGroup) string { return output.Int(int64(x.PurchaseValueRows)) }},
	{Header: "purchaseValue", Value: func(x svc.InsightSummaryGroup) string { return decimalText(x.PurchaseValue) }},
	{Header: "roas", Value: func(x svc.InsightSummaryGroup) string { return decimalText(x.ROAS) }},
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

// LegacySummarySpec is how the client-side totals of --summary are printed
// (the fallback for a service without GET /insights/summary).
var LegacySummarySpec = output.Spec[svc.InsightSummary]{
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
