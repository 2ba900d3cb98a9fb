package svctest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	svc "github.com/adsnap/svc/sdk-go"
)

// summarize answers GET /insights/summary over rows (already filtered by
// accountId): the groups of the rows of level, grouped by groupBy, each as
// the JSON the service sends, in the service's order. The arithmetic is
// openapi.yaml's (InsightSummaryGroup): exact decimal sums written with the
// largest number of decimal places added, purchase numbers taken as C's
// %.15g writes them, ratios rounded half away from zero to 4 places.
func summarize(rows []Row, level, groupBy string) ([]Row, error) {
	type key struct {
		currency, account, campaign string
		start, end                  svc.Date
	}
	groups := map[key]*group{}
	for i, r := range rows {
		var in svc.Insight
		if err := json.Unmarshal([]byte(r.JSON), &in); err != nil {
			return nil, fmt.Errorf("insight row %d is not an insight: %w", i, err)
		}
		if string(in.Level()) != level {
			continue
		}
		if in.Date == nil {
			return nil, fmt.Errorf("insight row %s has no date", in.ID)
		}
		d := *in.Date
		k := key{currency: in.Account.Currency}
		switch groupBy {
		case "account":
			k.account = r.AccountID
		case "campaign":
			k.account, k.campaign = r.AccountID, *in.CampaignID
		case "account,day":
			k.account, k.start, k.end = r.AccountID, d, d
		case "campaign,day":
			k.account, k.campaign, k.start, k.end = r.AccountID, *in.CampaignID, d, d
		case "day":
			k.start, k.end = d, d
		case "week":
			k.start = d.AddDays(-((int(d.Time().Weekday()) + 6) % 7)) // Monday
			k.end = k.start.AddDays(6)
		case "month":
			k.start = svc.Date{Year: d.Year, Month: d.Month, Day: 1}
			k.end = svc.DateOf(k.start.Time().AddDate(0, 1, -1))
		}
		g := groups[k]
		if g == nil {
			g = &group{days: map[svc.Date]bool{}}
			groups[k] = g
		}
		if err := g.add(in, d); err != nil {
			return nil, fmt.Errorf("insight row %s: %w", in.ID, err)
		}
	}
	keys := make([]key, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(strings.Compare(a.currency, b.currency), strings.Compare(a.account, b.account),
			strings.Compare(a.campaign, b.campaign), a.start.Time().Compare(b.start.Time()))
	})
	out := make([]Row, len(keys))
	for i, k := range keys {
		g := groups[k]
		item := svc.InsightSummaryGroup{Level: svc.Level(level), Currency: k.currency}
		if groupBy != "total" && groupBy != "day" && groupBy != "week" && groupBy != "month" {
			item.AccountID = &k.account
		}
		if groupBy == "campaign" || groupBy == "campaign,day" {
			item.CampaignID = &k.campaign
		}
		if !k.start.IsZero() {
			item.PeriodStart, item.PeriodEnd = &k.start, &k.end
		}
		g.fill(&item)
		b, err := json.Marshal(item)
		if err != nil {
			return nil, err
		}
		out[i] = Row{AccountID: k.account, JSON: string(b)}
	}
	return out, nil
}

// sum is an exact decimal sum and the most decimal places of its terms.
type sum struct {
	v     big.Rat
	scale int
}

func (s *sum) add(d string) error {
	r, ok := new(big.Rat).SetString(d)
	if !ok || strings.ContainsAny(d, "/") {
		return fmt.Errorf("%q is not a decimal", d)
	}
	s.v.Add(&s.v, r)
	s.scale = max(s.scale, places(d))
	return nil
}

func (s *sum) decimal() *svc.Decimal {
	d := svc.Decimal(s.v.FloatString(s.scale))
	return &d
}

// places is the number of decimal places needed to write the decimal d:
// its fraction digits less its exponent.
func places(d string) int {
	mant, exp := d, 0
	if i := strings.IndexAny(d, "eE"); i >= 0 {
		mant = d[:i]
		exp, _ = strconv.Atoi(d[i+1:])
	}
	_, frac, _ := strings.Cut(mant, ".")
	return max(len(frac)-exp, 0)
}

// group accumulates the rows of one group.
type group struct {
	rows, purchaseRows, valueRows int
	days                          map[svc.Date]bool
	impressions, clicks           int64
	spend, valueSpend             sum
	purchases, value              sum
}

func (g *group) add(in svc.Insight, d svc.Date) error {
	g.rows++
	g.days[d] = true
	g.impressions += in.Impressions
	g.clicks += in.Clicks
	if err := g.spend.add(in.Spend.String()); err != nil {
		return err
	}
	measured := in.PurchaseMeasurement == svc.PurchaseValueReported || in.PurchaseMeasurement == svc.PurchaseCountReported
	if measured && in.Purchases != nil {
		g.purchaseRows++
		if err := g.purchases.add(strconv.FormatFloat(*in.Purchases, 'g', 15, 64)); err != nil {
			return err
		}
	}
	if measured && in.PurchaseValue != nil {
		g.valueRows++
		if err := g.value.add(strconv.FormatFloat(*in.PurchaseValue, 'g', 15, 64)); err != nil {
			return err
		}
		return g.valueSpend.add(in.Spend.String())
	}
	return nil
}

// quotient is num/den×mul to 4 decimal places, rounded half away from zero
// (big.Rat.FloatString), or nil when den is 0.
func quotient(num, den *big.Rat, mul int64) *svc.Decimal {
	if den.Sign() == 0 {
		return nil
	}
	q := new(big.Rat).Quo(num, den)
	q.Mul(q, new(big.Rat).SetInt64(mul))
	d := svc.Decimal(q.FloatString(4))
	return &d
}

func (g *group) fill(item *svc.InsightSummaryGroup) {
	imp, clicks := new(big.Rat).SetInt64(g.impressions), new(big.Rat).SetInt64(g.clicks)
	item.Rows, item.Days = g.rows, len(g.days)
	item.Spend = *g.spend.decimal()
	item.Impressions, item.Clicks = g.impressions, g.clicks
	item.CTR = quotient(clicks, imp, 100)
	item.CPC = quotient(&g.spend.v, clicks, 1)
	item.CPM = quotient(&g.spend.v, imp, 1000)
	item.PurchaseRows, item.PurchaseValueRows = g.purchaseRows, g.valueRows
	if g.purchaseRows > 0 {
		item.Purchases = g.purchases.decimal()
	}
	if g.valueRows > 0 {
		item.PurchaseValue = g.value.decimal()
		item.ROAS = quotient(&g.value.v, &g.valueSpend.v, 1)
	}
}
