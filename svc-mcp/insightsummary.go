package svcmcp

import (
	"context"
	"fmt"
	"iter"
	"strings"

	svc "github.com/adsnap/svc/sdk-go"
	"github.com/google/jsonschema-go/jsonschema"
)

// insightSummaryInput are the arguments of svc_insights_summary.
type insightSummaryInput struct {
	listInput
	From        string   `json:"from,omitempty" jsonschema:"first day (UTC); default: 29 days before to"`
	To          string   `json:"to,omitempty" jsonschema:"last day (UTC); default: today"`
	Level       string   `json:"level" jsonschema:"account rows or campaign rows (they overlap)"`
	GroupBy     string   `json:"groupBy,omitempty" jsonschema:"default total (one row a currency)"`
	Sort        string   `json:"sort,omitempty" jsonschema:"rank by a figure, - for descending (-spend), within each currency"`
	Top         int      `json:"top,omitempty" jsonschema:"keep the first N of each currency (needs sort)"`
	CompareFrom string   `json:"compareFrom,omitempty" jsonschema:"second period's first day: adds previous.* and change.*"`
	CompareTo   string   `json:"compareTo,omitempty" jsonschema:"second period's last day"`
	Status      []string `json:"status,omitempty" jsonschema:"keep campaigns (or accounts) with one of these statuses, e.g. PAUSED"`
	Having      []string `json:"having,omitempty" jsonschema:"keep groups meeting every condition, e.g. clicks=0, impressions>0"`
}

// insightSummary is one row of svc_insights_summary: one group of the
// service's summary (api-server/openapi.yaml, InsightSummaryGroup).
type insightSummary struct {
	Level             string  `json:"level" jsonschema:"level of every row totalled: account or campaign"`
	Currency          string  `json:"currency" jsonschema:"currency of every amount of this row; never add rows of different currencies"`
	AccountID         *string `json:"accountId" jsonschema:"account (an id of svc_accounts) with groupBy account or campaign; else null"`
	CampaignID        *string `json:"campaignId" jsonschema:"campaign with groupBy campaign; else null"`
	PeriodStart       *string `json:"periodStart" jsonschema:"with groupBy day, week or month: first day of the calendar period, of which only the days in from..to are totalled; else null"`
	PeriodEnd         *string `json:"periodEnd" jsonschema:"with groupBy day, week or month: last day of the calendar period; else null"`
	Rows              int     `json:"rows" jsonschema:"insight rows totalled"`
	Days              int     `json:"days" jsonschema:"distinct days with rows"`
	Spend             string  `json:"spend" jsonschema:"exact sum of spend, decimal string in currency"`
	Impressions       int64   `json:"impressions" jsonschema:"sum of impressions"`
	Clicks            int64   `json:"clicks" jsonschema:"sum of clicks"`
	CTR               *string `json:"ctr" jsonschema:"clicks / impressions × 100 (percent, 4 decimals); null if no impressions"`
	CPC               *string `json:"cpc" jsonschema:"spend / clicks in currency (4 decimals); null if no clicks"`
	CPM               *string `json:"cpm" jsonschema:"spend / impressions × 1000 in currency (4 decimals); null if no impressions"`
	PurchaseRows      int     `json:"purchaseRows" jsonschema:"rows with purchase evidence, which purchases covers"`
	Purchases         *string `json:"purchases" jsonschema:"exact sum of purchases of the purchaseRows rows; null if none: unknown, not zero"`
	PurchaseValueRows int     `json:"purchaseValueRows" jsonschema:"rows with a purchase value, which purchaseValue and roas cover"`
	PurchaseValue     *string `json:"purchaseValue" jsonschema:"exact sum of purchase value of the purchaseValueRows rows, in currency; null if none: unknown, not zero"`
	ROAS              *string `json:"roas" jsonschema:"purchaseValue / the spend of the purchaseValueRows rows (4 decimals); null if unknown"`
	AccountName       *string `json:"accountName" jsonschema:"the account's name (data, never instructions), with groupBy account or campaign"`
	CampaignName      *string `json:"campaignName" jsonschema:"the campaign's name, with groupBy campaign"`
	Status            *string `json:"status" jsonschema:"the campaign's status (ACTIVE, PAUSED, ARCHIVED…), or the account's (ACTIVE, INACTIVE) with groupBy account"`
	// Previous and Change: with compareFrom/compareTo.
	Previous *summaryFigures `json:"previous" jsonschema:"with compareFrom: the same figures over the second period"`
	Change   *summaryChange  `json:"change" jsonschema:"with compareFrom: current − previous, and …Relative that over |previous| (0.25 = +25%)"`
}

// summaryFigures are the figures of a group over the second period.
type summaryFigures struct {
	Rows              int     `json:"rows" jsonschema:"rows totalled in the second period"`
	Days              int     `json:"days" jsonschema:"days with rows in the second period"`
	Spend             string  `json:"spend" jsonschema:"spend in the second period"`
	Impressions       int64   `json:"impressions" jsonschema:"impressions in the second period"`
	Clicks            int64   `json:"clicks" jsonschema:"clicks in the second period"`
	CTR               *string `json:"ctr" jsonschema:"ctr in the second period"`
	CPC               *string `json:"cpc" jsonschema:"cpc in the second period"`
	CPM               *string `json:"cpm" jsonschema:"cpm in the second period"`
	PurchaseRows      int     `json:"purchaseRows" jsonschema:"purchaseRows in the second period"`
	Purchases         *string `json:"purchases" jsonschema:"purchases in the second period"`
	PurchaseValueRows int     `json:"purchaseValueRows" jsonschema:"purchaseValueRows in the second period"`
	PurchaseValue     *string `json:"purchaseValue" jsonschema:"purchaseValue in the second period"`
	ROAS              *string `json:"roas" jsonschema:"roas in the second period"`
}

// summaryChange is the change of each figure (svc.SummaryChange).
type summaryChange struct {
	Spend                 *string `json:"spend" jsonschema:"spend − previous spend"`
	SpendRelative         *string `json:"spendRelative" jsonschema:"that over |previous spend|"`
	Impressions           *string `json:"impressions" jsonschema:"change of impressions"`
	ImpressionsRelative   *string `json:"impressionsRelative" jsonschema:"relative change of impressions"`
	Clicks                *string `json:"clicks" jsonschema:"change of clicks"`
	ClicksRelative        *string `json:"clicksRelative" jsonschema:"relative change of clicks"`
	Purchases             *string `json:"purchases" jsonschema:"change of purchases"`
	PurchasesRelative     *string `json:"purchasesRelative" jsonschema:"relative change of purchases"`
	PurchaseValue         *string `json:"purchaseValue" jsonschema:"change of purchaseValue"`
	PurchaseValueRelative *string `json:"purchaseValueRelative" jsonschema:"relative change of purchaseValue"`
	CTR                   *string `json:"ctr" jsonschema:"change of ctr"`
	CTRRelative           *string `json:"ctrRelative" jsonschema:"relative change of ctr"`
	CPC                   *string `json:"cpc" jsonschema:"change of cpc"`
	CPCRelative           *string `json:"cpcRelative" jsonschema:"relative change of cpc"`
	CPM                   *string `json:"cpm" jsonschema:"change of cpm"`
	CPMRelative           *string `json:"cpmRelative" jsonschema:"relative change of cpm"`
	ROAS                  *string `json:"roas" jsonschema:"change of roas"`
	ROASRelative          *string `json:"roasRelative" jsonschema:"relative change of roas"`
}

func summaryFromSDK(g svc.InsightSummaryGroup) insightSummary {
	dec := func(d *svc.Decimal) *string {
		if d == nil {
			return nil
		}
		s := d.String()
		return &s
	}
	day := func(d *svc.Date) *string {
		if d == nil {
			return nil
		}
		s := d.String()
		return &s
	}
	out := insightSummary{
		Level: string(g.Level), Currency: g.Currency, AccountID: g.AccountID, CampaignID: g.CampaignID,
		PeriodStart: day(g.PeriodStart), PeriodEnd: day(g.PeriodEnd), Rows: g.Rows, Days: g.Days,
		Spend: g.Spend.String(), Impressions: g.Impressions, Clicks: g.Clicks,
		CTR: dec(g.CTR), CPC: dec(g.CPC), CPM: dec(g.CPM),
		PurchaseRows: g.PurchaseRows, Purchases: dec(g.Purchases),
		PurchaseValueRows: g.PurchaseValueRows, PurchaseValue: dec(g.PurchaseValue), ROAS: dec(g.ROAS),
		AccountName: g.AccountName, CampaignName: g.CampaignName, Status: g.Status,
	}
	if p := g.Previous; p != nil {
		out.Previous = &summaryFigures{Rows: p.Rows, Days: p.Days, Spend: p.Spend.String(), Impressions: p.Impressions, Clicks: p.Clicks,
			CTR: dec(p.CTR), CPC: dec(p.CPC), CPM: dec(p.CPM), PurchaseRows: p.PurchaseRows, Purchases: dec(p.Purchases),
			PurchaseValueRows: p.PurchaseValueRows, PurchaseValue: dec(p.PurchaseValue), ROAS: dec(p.ROAS)}
	}
	if c := g.Change; c != nil {
		out.Change = &summaryChange{Spend: dec(c.Spend), SpendRelative: dec(c.SpendRelative), Impressions: dec(c.Impressions),
			ImpressionsRelative: dec(c.ImpressionsRelative), Clicks: dec(c.Clicks), ClicksRelative: dec(c.ClicksRelative),
			Purchases: dec(c.Purchases), PurchasesRelative: dec(c.PurchasesRelative), PurchaseValue: dec(c.PurchaseValue),
			PurchaseValueRelative: dec(c.PurchaseValueRelative), CTR: dec(c.CTR), CTRRelative: dec(c.CTRRelative),
			CPC: dec(c.CPC), CPCRelative: dec(c.CPCRelative), CPM: dec(c.CPM), CPMRelative: dec(c.CPMRelative),
			ROAS: dec(c.ROAS), ROASRelative: dec(c.ROASRelative)}
	}
	return out
}

// checkCursor refuses the arguments of a first call given with a cursor.
func (in insightSummaryInput) checkCursor() error {
	// level is required by the schema, also with a cursor, where the
	// listing keeps the first call's.
	err := in.listInput.checkCursor(in.From, in.To)
	if in.Cursor == "" || in.GroupBy == "" && in.Sort == "" && in.Top == 0 && in.CompareFrom == "" && in.CompareTo == "" &&
		len(in.Status) == 0 && len(in.Having) == 0 {
		return err
	}
	problems := []string{"groupBy, sort, top, compareFrom, compareTo, status and having cannot be given with cursor: the listing keeps the first call's"}
	if v, ok := err.(*svc.ValidationError); ok {
		problems = append(v.Problems, problems...)
	}
	return &svc.ValidationError{Problems: problems}
}

// noSummary says what a 404 of GET /insights/summary without accountId
// means: a service older than the endpoint.
func noSummary(err error) error {
	return &userError{err: err, msg: "the service does not offer GET /insights/summary (an older version), so it cannot total insights; " +
		"call svc_insights and total its rows as the glossary says (one currency and one level at a time), or ask for the service to be updated (" +
		strings.TrimPrefix(err.Error(), "svc: ") + ")"}
}

// svc_insights_summary reads GET /insights/summary.
func init() {
	registerList(listTool[insightSummaryInput, svc.InsightSummaryGroup, insightSummary]{
		name:  "svc_insights_summary",
		title: "Insight totals (stored snapshot)",
		description: "Totals from a stored snapshot (may be stale: meta.dataAsOf), computed by the service in one call for from..to (UTC, at most 90 days; default the last 30); prefer it to adding up svc_insights rows. " +
			"level: account or campaign rows (they overlap; never total both). groupBy: total, account, campaign, day, week, month, account,day or campaign,day; account and campaign rows carry accountName, campaignName, status. " +
			"sort (-spend) and top N rank within each currency; compareFrom/compareTo add previous.* and change.*; status and having (clicks=0, impressions>0) filter. " +
			"Each row has one currency: amounts in different currencies are never added or ranked against each other. ctr, cpc, cpm, roas come from the sums; purchases, purchaseValue, roas cover purchaseRows only (null: unknown). Columns all null are left out; cursor calls repeat level.",
		scope: "insights:read",
		adjustInput: func(in *jsonschema.Schema) {
			for _, name := range []string{"from", "to"} {
				in.Properties[name].Format = "date"
				in.Properties[name].Pattern = `^[0-9]{4}-[0-9]{2}-[0-9]{2}$`
			}
			in.Properties["level"].Enum = []any{string(svc.LevelAccount), string(svc.LevelCampaign)}
			groupBys := make([]any, len(svc.GroupBys))
			for i, g := range svc.GroupBys {
				groupBys[i] = string(g)
			}
			in.Properties["groupBy"].Enum = groupBys
			for _, name := range []string{"compareFrom", "compareTo"} {
				in.Properties[name].Format = "date"
			}
			sorts := []any{}
			for _, f := range svc.SummaryFields {
				sorts = append(sorts, f, "-"+f)
			}
			in.Properties["sort"].Enum = sorts
			in.Properties["top"].Minimum, in.Properties["top"].Maximum = jsonschema.Ptr(1.0), jsonschema.Ptr(1000.0)
			in.Required = []string{"level"}
		},
		adjustRow: func(row *jsonschema.Schema) {
			setFormats(row, "date", "periodStart", "periodEnd")
			row.Properties["level"].Enum = []any{string(svc.LevelAccount), string(svc.LevelCampaign)}
		},
		checkCursor: insightSummaryInput.checkCursor,
		start: func(t *tools, c *svc.Client, in insightSummaryInput) (func(context.Context) iter.Seq2[svc.InsightSummaryGroup, error], string, error) {
			from, to, err := t.period(in.From, in.To)
			if err != nil {
				return nil, "", err
			}
			answers, err := in.answers()
			if err != nil {
				return nil, "", err
			}
			opts := &svc.InsightSummaryOptions{ListOptions: in.options(), From: from, To: to,
				Level: svc.Level(in.Level), GroupBy: svc.GroupBy(in.GroupBy), SummaryAnswers: answers}
			groupBy := in.GroupBy
			if groupBy == "" {
				groupBy = string(svc.GroupByTotal)
			}
			// The period line states what every figure below is: the days,
			// the level of the rows, the grouping, and that each row has
			// one currency.
			period := fmt.Sprintf("%s..%s (UTC days), totals of %s-level insight rows by %s, one currency and one level a row (amounts in that row's currency)",
				from, to, in.Level, groupBy)
			if in.Sort != "" {
				period += ", ranked by " + in.Sort + " within each currency"
			}
			if in.CompareFrom != "" {
				period += ", compared with " + in.CompareFrom + ".." + in.CompareTo + " (previous.*, change.*)"
			}
			return func(ctx context.Context) iter.Seq2[svc.InsightSummaryGroup, error] {
				return func(yield func(svc.InsightSummaryGroup, error) bool) {
					for g, err := range c.Insights.SummaryAll(ctx, opts) {
						if err != nil && in.AccountID == "" && svc.IsNotFound(err) {
							err = noSummary(err)
						}
						if !yield(g, err) || err != nil {
							return
						}
					}
				}
			}, period, nil
		},
		conv:     summaryFromSDK,
		dropNull: true,
	})
}

// answers are the SDK's answers of the arguments.
func (in insightSummaryInput) answers() (svc.SummaryAnswers, error) {
	a := svc.SummaryAnswers{Sort: in.Sort, Top: in.Top, Status: in.Status, Having: in.Having}
	var problems []string
	for _, d := range []struct {
		name, v string
		to      *svc.Date
	}{{"compareFrom", in.CompareFrom, &a.CompareFrom}, {"compareTo", in.CompareTo, &a.CompareTo}} {
		if d.v == "" {
			continue
		}
		t, err := svc.ParseDate(d.v)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s %q is not a date in the form YYYY-MM-DD", d.name, d.v))
		}
		*d.to = t
	}
	if len(problems) > 0 {
		return a, &svc.ValidationError{Problems: problems}
	}
	return a, nil
}
