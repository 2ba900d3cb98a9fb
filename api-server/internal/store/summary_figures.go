package store

import (
	"cmp"
	"math/big"
	"slices"
	"strings"

	apiquery "github.com/adsnap/svc/api-server/internal/query"
)

// The arithmetic of the summary's answers (issue 46): the figures of a
// group as the API shows them, the change against a second period, the
// having conditions, and the ranking within each currency. Every figure is
// exact: sums are decimals, ratios are rounded once to 4 decimal places,
// half away from zero (openapi.yaml, InsightSummaryGroup), and sorting and
// conditions use the figures as shown.

// Figure is the value of the summed figure name of g (apiquery.SummaryFields)
// as the API shows it; nil where the API shows null (a ratio over 0, the
// purchase figures of a group without purchase evidence).
func (g *SummaryGroup) Figure(name string) *big.Rat {
	switch name {
	case "spend":
		return decRat(g.Spend)
	case "impressions":
		return new(big.Rat).SetInt64(g.Impressions)
	case "clicks":
		return new(big.Rat).SetInt64(g.Clicks)
	case "purchases":
		if g.PurchaseRows == 0 {
			return nil
		}
		return decRat(g.Purchases)
	case "purchaseValue":
		if g.PurchaseValueRows == 0 {
			return nil
		}
		return decRat(g.PurchaseValue)
	case "ctr":
		return Ratio(new(big.Rat).SetInt64(g.Clicks), new(big.Rat).SetInt64(g.Impressions), 100)
	case "cpc":
		return Ratio(decRat(g.Spend), new(big.Rat).SetInt64(g.Clicks), 1)
	case "cpm":
		return Ratio(decRat(g.Spend), new(big.Rat).SetInt64(g.Impressions), 1000)
	case "roas":
		if g.PurchaseValueRows == 0 {
			return nil
		}
		return Ratio(decRat(g.PurchaseValue), decRat(g.ValueSpend), 1)
	}
	return nil
}

// Ratio is num/den×mul rounded to 4 decimal places, half away from zero
// (big.Rat.FloatString), or nil when den is 0.
func Ratio(num, den *big.Rat, mul int64) *big.Rat {
	if den.Sign() == 0 {
		return nil
	}
	q := new(big.Rat).Quo(num, den)
	q.Mul(q, new(big.Rat).SetInt64(mul))
	r, _ := new(big.Rat).SetString(q.FloatString(4))
	return r
}

// decRat is the exact value of a decimal from the store, 0 for "".
func decRat(d string) *big.Rat {
	r, ok := new(big.Rat).SetString(d)
	if !ok {
		return new(big.Rat)
	}
	return r
}

// Decimal writes r exactly in plain decimal notation with the fewest
// decimal places (at most 18; every figure here has a finite expansion).
func Decimal(r *big.Rat) string {
	for n := 0; n < 18; n++ {
		if new(big.Rat).Mul(r, new(big.Rat).SetInt(pow10(n))).IsInt() {
			return r.FloatString(n)
		}
	}
	return r.FloatString(18)
}

// FigureChange is the change of one figure against the second period: Absolute =
// current − previous, Relative = that over |previous| to 4 decimal places
// (0.25 is +25 %); each "" where the API shows null (a null figure, or a
// previous value of 0 for Relative).
type FigureChange struct {
	Absolute, Relative string
}

// FigureChanges are the changes of g against prev, by figure name, in the order
// of apiquery.SummaryFields.
func FigureChanges(g, prev *SummaryGroup) []FigureChange {
	out := make([]FigureChange, len(apiquery.SummaryFields))
	for i, f := range apiquery.SummaryFields {
		cur, was := g.Figure(f), prev.Figure(f)
		if cur == nil || was == nil {
			continue
		}
		d := new(big.Rat).Sub(cur, was)
		out[i].Absolute = Decimal(d)
		if was.Sign() != 0 {
			out[i].Relative = new(big.Rat).Quo(d, new(big.Rat).Abs(was)).FloatString(4)
		}
	}
	return out
}

// Meets reports whether g meets every condition; a null figure meets none.
func (g *SummaryGroup) Meets(conds []apiquery.Condition) bool {
	for _, c := range conds {
		v := g.Figure(c.Field)
		if v == nil {
			return false
		}
		k := v.Cmp(decRat(c.Value))
		ok := false
		switch c.Op {
		case "=":
			ok = k == 0
		case "!=":
			ok = k != 0
		case ">":
			ok = k > 0
		case ">=":
			ok = k >= 0
		case "<":
			ok = k < 0
		case "<=":
			ok = k <= 0
		}
		if !ok {
			return false
		}
	}
	return true
}

// Rank orders groups by currency (byte order), then by the figure field
// (descending when desc; null figures last either way), then in the API's
// order, and keeps the first top of each currency (all when top is 0).
func Rank(groups []SummaryGroup, field string, desc bool, top int) []SummaryGroup {
	type keyed struct {
		g *SummaryGroup
		v *big.Rat
	}
	ks := make([]keyed, len(groups))
	for i := range groups {
		ks[i] = keyed{&groups[i], groups[i].Figure(field)}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		if c := strings.Compare(a.g.Currency, b.g.Currency); c != 0 {
			return c
		}
		switch {
		case a.v == nil && b.v == nil:
		case a.v == nil:
			return 1
		case b.v == nil:
			return -1
		case desc:
			if c := b.v.Cmp(a.v); c != 0 {
				return c
			}
		default:
			if c := a.v.Cmp(b.v); c != 0 {
				return c
			}
		}
		return compareKeys(a.g, b.g)
	})
	out := make([]SummaryGroup, 0, len(ks))
	n := 0
	for i, k := range ks {
		if i > 0 && k.g.Currency != ks[i-1].g.Currency {
			n = 0
		}
		if top == 0 || n < top {
			out = append(out, *k.g)
		}
		n++
	}
	return out
}

// compareKeys is the API's order of groups: currency, account, campaign
// (byte order), then the period.
func compareKeys(a, b *SummaryGroup) int {
	return cmp.Or(strings.Compare(a.Currency, b.Currency), strings.Compare(a.AccountID, b.AccountID),
		strings.Compare(a.CampaignID, b.CampaignID), strings.Compare(a.PeriodStart, b.PeriodStart))
}
