package svcmcp

import (
	"context"
	"fmt"
	"iter"
	"time"

	svc "github.com/adsnap/svc/sdk-go"
	"github.com/google/jsonschema-go/jsonschema"
)

// insightsInput are the arguments of svc_insights.
type insightsInput struct {
	listInput
	From string `json:"from,omitempty" jsonschema:"first day (UTC); default: 29 days before to"`
	To   string `json:"to,omitempty" jsonschema:"last day (UTC); default: today"`
}

// insight is one row of svc_insights (SPEC §2, Insight): one day of one
// account (campaignId null) or of one campaign.
type insight struct {
	ID                  string     `json:"id" jsonschema:"row id"`
	PlatformAdAccountID string     `json:"platformAdAccountId" jsonschema:"id of the advertising account at the upstream platform"`
	AttributionWindow   string     `json:"attributionWindow" jsonschema:"attribution window of the conversions"`
	CampaignID          *string    `json:"campaignId" jsonschema:"campaign of a campaign-level row; null for an account-level row. The two levels overlap: never sum account-level and campaign-level rows together"`
	Date                *string    `json:"date" jsonschema:"the day the row covers, YYYY-MM-DD; null if unknown"`
	SyncedAt            *time.Time `json:"syncedAt" jsonschema:"time this row was synchronized; null if unknown"`
	Account             accountRef `json:"account" jsonschema:"currency and time zone of the row's account: spend, cpc and cpm are in this currency"`
	PurchaseMeasurement string     `json:"purchaseMeasurement" jsonschema:"how purchases were measured; unavailable means purchases, purchaseValue and roas are null"`
	Spend               string     `json:"spend" jsonschema:"amount spent, a decimal string in the account currency"`
	CTR                 string     `json:"ctr" jsonschema:"click-through rate, a decimal string as stored"`
	CPC                 string     `json:"cpc" jsonschema:"cost per click, a decimal string in the account currency"`
	CPM                 string     `json:"cpm" jsonschema:"cost per thousand impressions, a decimal string in the account currency"`
	Impressions         int64      `json:"impressions" jsonschema:"impressions"`
	Reach               int64      `json:"reach" jsonschema:"people reached that day; daily reach does not add up over days"`
	Clicks              int64      `json:"clicks" jsonschema:"clicks"`
	Purchases           *float64   `json:"purchases" jsonschema:"purchases; null when purchase evidence is unavailable (unknown, not zero)"`
	PurchaseValue       *float64   `json:"purchaseValue" jsonschema:"purchase value in the account currency; null when purchase evidence is unavailable (unknown, not zero)"`
	ROAS                *float64   `json:"roas" jsonschema:"return on ad spend; null when purchase evidence is unavailable (unknown, not zero)"`
}

func insightFromSDK(x svc.Insight) insight {
	var date *string
	if x.Date != nil {
		d := x.Date.String()
		date = &d
	}
	return insight{
		ID:                  x.ID,
		PlatformAdAccountID: x.PlatformAdAccountID,
		AttributionWindow:   x.AttributionWindow,
		CampaignID:          x.CampaignID,
		Date:                date,
		SyncedAt:            x.SyncedAt,
		Account:             accountRef(x.Account),
		PurchaseMeasurement: string(x.PurchaseMeasurement),
		Spend:               x.Spend.String(),
		CTR:                 x.CTR.String(),
		CPC:                 x.CPC.String(),
		CPM:                 x.CPM.String(),
		Impressions:         x.Impressions,
		Reach:               x.Reach,
		Clicks:              x.Clicks,
		Purchases:           x.Purchases,
		PurchaseValue:       x.PurchaseValue,
		ROAS:                x.ROAS,
	}
}

// svc_insights reads GET /insights.
func init() {
	registerList(listTool[insightsInput, svc.Insight, insight]{
		name:  "svc_insights",
		title: "Daily insights (stored snapshot)",
		description: "Daily metric rows from a stored snapshot (may be stale: meta.dataAsOf), newest day first, from..to (UTC, at most 90 days; default the last 30). " +
			"Account-level rows (campaignId null) and campaign-level rows overlap: they must not be summed together. Amounts are in the row's account.currency: different currencies must not be added. " +
			"purchases, purchaseValue, roas: null when purchase evidence is unavailable (unknown, not zero). For totals, rankings or comparisons call svc_insights_summary instead.",
		scope: "insights:read",
		adjustInput: func(in *jsonschema.Schema) {
			for _, name := range []string{"from", "to"} {
				in.Properties[name].Format = "date"
				in.Properties[name].Pattern = `^[0-9]{4}-[0-9]{2}-[0-9]{2}$`
			}
		},
		adjustRow: func(row *jsonschema.Schema) {
			setFormats(row, "date-time", "syncedAt")
			setFormats(row, "date", "date")
			row.Properties["purchaseMeasurement"].Enum = []any{
				string(svc.PurchaseValueReported), string(svc.PurchaseCountReported), string(svc.PurchaseUnavailable),
			}
		},
		checkCursor: func(in insightsInput) error { return in.checkCursor(in.From, in.To) },
		start: func(t *tools, c *svc.Client, in insightsInput) (func(context.Context) iter.Seq2[svc.Insight, error], string, error) {
			from, to, err := t.period(in.From, in.To)
			if err != nil {
				return nil, "", err
			}
			return func(ctx context.Context) iter.Seq2[svc.Insight, error] {
				return c.Insights.All(ctx, &svc.InsightListOptions{ListOptions: in.options(), From: from, To: to})
			}, from.String() + ".." + to.String(), nil
		},
		conv: insightFromSDK,
	})
}

// period resolves the days to ask for as the service would, with
// svc.InsightDates (today is the UTC day of the server's clock). Both are
// always sent, so that the period the result states is the one the service
// used.
func (t *tools) period(fromArg, toArg string) (from, to svc.Date, err error) {
	var problems []string
	parse := func(name, s string) svc.Date {
		if s == "" {
			return svc.Date{}
		}
		d, err := svc.ParseDate(s)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s %q is not a date in the form YYYY-MM-DD", name, s))
		}
		return d
	}
	from, to = parse("from", fromArg), parse("to", toArg)
	if len(problems) > 0 {
		return svc.Date{}, svc.Date{}, &svc.ValidationError{Problems: problems}
	}
	r, err := svc.InsightDates(from, to, svc.DateOf(t.now().UTC()))
	if err != nil {
		return svc.Date{}, svc.Date{}, err // a *svc.DateRangeError
	}
	return r.From, r.To, nil
}
