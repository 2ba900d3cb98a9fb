package server

import (
	"encoding/json"
	"math/big"

	"github.com/adsnap/svc/api-server/internal/query"
	"github.com/adsnap/svc/api-server/internal/store"
)

// GET /insights/summary (openapi.yaml, readInsightSummary; issue 34): the
// groups of the organization's insight rows, one currency and one level
// each, summed exactly by the store (readSummary, endpoints.go); the ratios
// are computed here from those sums, as the page encodes itself. The
// request is served as every endpoint is (serve) and charged as one
// request.

// capNoteSummary is added to Note on a summary page that stops at the offset
// limit while groups remain.
const capNoteSummary = " More groups exist beyond the offset limit (10000): nextOffset is null here only because of that limit. Read them per account (accountId) when grouping by account or campaign, or with a narrower date range (from, to) when grouping by day, week or month."

// summaryPage is a page of groups as respond writes it.
type summaryPage struct {
	groups []store.SummaryGroup
	level  string
	opts   *query.SummaryOptions
}

func (p summaryPage) Len() int { return len(p.groups) }
func (p summaryPage) Release() {}

func (p summaryPage) AppendJSON(b []byte, n int) ([]byte, bool) {
	b = append(b, '[')
	for i, g := range p.groups[:n] {
		if i > 0 {
			b = append(b, ',')
		}
		js, err := json.Marshal(answerItem(summaryItem(p.level, &g), &g, p.opts))
		if err != nil {
			return b, false
		}
		b = append(b, js...)
	}
	return append(b, ']'), true
}

// summaryGroup is InsightSummaryGroup of openapi.yaml, in its order: its
// keys, then its figures (figures is embedded, so encoding/json writes its
// fields here, in place).
type summaryGroup struct {
	Level       string  `json:"level"`
	Currency    string  `json:"currency"`
	AccountID   *string `json:"accountId"`
	CampaignID  *string `json:"campaignId"`
	PeriodStart *string `json:"periodStart"`
	PeriodEnd   *string `json:"periodEnd"`
	figures
}

// orNull is s, or nil (null) for "".
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func summaryItem(level string, g *store.SummaryGroup) summaryGroup {
	spend := rat(g.Spend)
	clicks, imp := new(big.Rat).SetInt64(g.Clicks), new(big.Rat).SetInt64(g.Impressions)
	out := summaryGroup{
		Level: level, Currency: g.Currency,
		AccountID: orNull(g.AccountID), CampaignID: orNull(g.CampaignID),
		PeriodStart: orNull(g.PeriodStart), PeriodEnd: orNull(g.PeriodEnd),
		figures: figures{
			Rows: g.Rows, Days: g.Days, Spend: g.Spend, Impressions: g.Impressions, Clicks: g.Clicks,
			CTR: ratio(clicks, imp, 100), CPC: ratio(spend, clicks, 1), CPM: ratio(spend, imp, 1000),
			PurchaseRows: g.PurchaseRows, PurchaseValueRows: g.PurchaseValueRows,
		},
	}
	if g.PurchaseRows > 0 {
		out.Purchases = orNull(g.Purchases)
	}
	if g.PurchaseValueRows > 0 {
		out.PurchaseValue = orNull(g.PurchaseValue)
		out.ROAS = ratio(rat(g.PurchaseValue), rat(g.ValueSpend), 1)
	}
	return out
}

// rat is the exact value of a decimal from the store (0 for "", which the
// store never gives where it is read).
func rat(d string) *big.Rat {
	r, ok := new(big.Rat).SetString(d)
	if !ok {
		return new(big.Rat)
	}
	return r
}

// ratio is num/den×mul rounded once, half away from zero, to 4 decimal
// places (big.Rat.FloatString: openapi.yaml, InsightSummaryGroup), or nil
// (null) when den is 0.
func ratio(num, den *big.Rat, mul int64) *string {
	if den.Sign() == 0 {
		return nil
	}
	q := new(big.Rat).Quo(num, den)
	q.Mul(q, new(big.Rat).SetInt64(mul))
	s := q.FloatString(4)
	return &s
}
