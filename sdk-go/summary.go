package svc

import (
	"cmp"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// Level is the level of an insight row: account or campaign. Rows of the two
// levels overlap and must never be added together.
type Level string

// The levels of insight rows.
const (
	// LevelAccount is an account-level row (Insight.CampaignID is nil).
	LevelAccount Level = "account"
	// LevelCampaign is a campaign-level row.
	LevelCampaign Level = "campaign"
)

// InsightSummary holds the totals of the insight rows of one currency and one
// level.
//
// Reach is deliberately not totalled: the same person can be reached on
// several days, so daily reach does not add up. CTR, CPC, CPM and ROAS are
// ratios and are not totalled either.
type InsightSummary struct {
	// Currency is the account currency of every row in the group.
	Currency string
	// Level is the level of every row in the group.
	Level Level
	// Rows is the number of rows in the group.
	Rows int
	// Spend is the exact sum of the rows' spend, written with the largest
	// number of decimal places among them. It is empty when a row's spend
	// is not a decimal number (which cannot happen for rows decoded from
	// the API, where such a value is a decoding error).
	Spend Decimal
	// Impressions is the sum of the rows' impressions.
	Impressions int64
	// Clicks is the sum of the rows' clicks.
	Clicks int64
	// Purchases is the sum of the rows' purchases, or nil — unavailable,
	// never zero — when any row in the group has no purchase evidence
	// (PurchaseMeasurement unavailable or missing, or Purchases nil).
	Purchases *Decimal
	// PurchaseValue is the sum of the rows' purchase values, in Currency,
	// or nil when any row in the group has no purchase value.
	PurchaseValue *Decimal
}

// SummarizeInsights totals rows per (currency, level). It never adds amounts
// in different currencies, nor account-level rows to campaign-level rows. The
// result is sorted by currency, then level (account before campaign).
//
// Sums are exact: spend is added as decimal text, and purchase numbers are
// added as the shortest decimal that reads back as the same float64, so 0.1
// plus 0.2 gives 0.3.
//
// Deprecated: Use [InsightsService.Summary], which the service answers in
// one request instead of every row read, with more groupings (account,
// campaign, day, week, month), recomputed ratios, and purchase totals over
// the rows with evidence beside their count (where SummarizeInsights gives
// nil as soon as one row lacks evidence). SummarizeInsights stays for rows
// already in hand and for services without GET /insights/summary.
func SummarizeInsights(rows []Insight) []InsightSummary {
	var t InsightTotals
	for _, r := range rows {
		t.Add(r)
	}
	return t.Summaries()
}

// InsightTotals totals insight rows one at a time, as [SummarizeInsights]
// does for a slice, so that a bulk read can be totalled as it streams (with
// [InsightsService.All]) without keeping its rows. The zero value is ready
// to use.
//
// Deprecated: Use [InsightsService.Summary] or [InsightsService.SummaryAll];
// see [SummarizeInsights].
type InsightTotals struct {
	groups map[totalsKey]*totalsAcc
}

type totalsKey struct {
	currency string
	level    Level
}

type totalsAcc struct {
	sum                   InsightSummary
	spend, purch, value   *big.Rat
	spendScale, pScale    int
	vScale                int
	spendOK, purchOK, vOK bool
}

// Add adds one row to the totals of its currency and level.
func (t *InsightTotals) Add(r Insight) {
	if t.groups == nil {
		t.groups = map[totalsKey]*totalsAcc{}
	}
	k := totalsKey{r.Account.Currency, r.Level()}
	g := t.groups[k]
	if g == nil {
		g = &totalsAcc{
			sum:   InsightSummary{Currency: k.currency, Level: k.level},
			spend: new(big.Rat), purch: new(big.Rat), value: new(big.Rat),
			spendOK: true, purchOK: true, vOK: true,
		}
		t.groups[k] = g
	}
	g.sum.Rows++
	g.sum.Impressions += r.Impressions
	g.sum.Clicks += r.Clicks
	g.spendOK = g.spendOK && addDecimal(g.spend, &g.spendScale, string(r.Spend))
	measured := r.PurchaseMeasurement == PurchaseValueReported || r.PurchaseMeasurement == PurchaseCountReported
	g.purchOK = g.purchOK && measured && r.Purchases != nil &&
		addDecimal(g.purch, &g.pScale, strconv.FormatFloat(*r.Purchases, 'f', -1, 64))
	g.vOK = g.vOK && measured && r.PurchaseValue != nil &&
		addDecimal(g.value, &g.vScale, strconv.FormatFloat(*r.PurchaseValue, 'f', -1, 64))
}

// Summaries returns the totals so far, sorted by currency, then level
// (account before campaign).
func (t *InsightTotals) Summaries() []InsightSummary {
	out := make([]InsightSummary, 0, len(t.groups))
	for _, g := range t.groups {
		s := g.sum
		if g.spendOK {
			s.Spend = Decimal(g.spend.FloatString(g.spendScale))
		}
		if g.purchOK {
			d := Decimal(g.purch.FloatString(g.pScale))
			s.Purchases = &d
		}
		if g.vOK {
			d := Decimal(g.value.FloatString(g.vScale))
			s.PurchaseValue = &d
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b InsightSummary) int {
		return cmp.Or(cmp.Compare(a.Currency, b.Currency), cmp.Compare(a.Level, b.Level))
	})
	return out
}

// addDecimal adds the decimal s to sum and raises *scale to the number of
// decimal places s needs. It reports false when s is not a decimal.
func addDecimal(sum *big.Rat, scale *int, s string) bool {
	r, err := Decimal(s).Rat()
	if err != nil {
		return false
	}
	sum.Add(sum, r)
	*scale = max(*scale, decimalScale(s))
	return true
}

// decimalScale returns the number of decimal places needed to write the
// decimal s exactly: its fraction digits less its exponent.
func decimalScale(s string) int {
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		exp, _ = strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
	}
	_, frac, _ := strings.Cut(mant, ".")
	return max(len(frac)-exp, 0)
}
