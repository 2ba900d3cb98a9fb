package harness

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The summary oracle: what GET /insights/summary must answer for a set of
// insight rows, computed here from the rows themselves, independently of
// svc-api, sdk-go's svctest and the clients, by the rules of
// api-server/openapi.yaml (InsightSummaryGroup). Tests call it with every row
// the list endpoint returns for the same window (each row with the account
// id whose accountId filter lists it, since rows carry only the platform's
// account id) and compare its answer with the endpoint's, field for field.

// SummaryRow is one insight row as GET /insights returns it (JSON), with the
// id of its account (the accountId filter that lists it).
type SummaryRow struct {
	AccountID string
	JSON      json.RawMessage
}

// Summary levels and groupings (the level and groupBy parameters).
var (
	SummaryLevels   = []string{"account", "campaign"}
	SummaryGroupBys = []string{"total", "account", "campaign", "day", "week", "month"}
)

// ExpectedSummary returns every group GET /insights/summary must answer for
// rows with level and groupBy, in the documented order, each as the JSON
// object the endpoint sends (decoded: numbers are float64, as
// encoding/json decodes them into any). rows must be the rows of the
// request's window and accountId; rows of the other level are left out
// here. groupBy campaign with level account is an error (the endpoint
// answers 400).
func ExpectedSummary(rows []SummaryRow, level, groupBy string) ([]any, error) {
	if !slices.Contains(SummaryLevels, level) || !slices.Contains(SummaryGroupBys, groupBy) {
		return nil, fmt.Errorf("summary oracle: level %q, groupBy %q", level, groupBy)
	}
	if groupBy == "campaign" && level != "campaign" {
		return nil, fmt.Errorf("summary oracle: groupBy campaign needs level campaign")
	}
	groups := map[oracleKey]*oracleGroup{}
	for i, r := range rows {
		var row oracleRow
		if err := json.Unmarshal(r.JSON, &row); err != nil {
			return nil, fmt.Errorf("summary oracle: row %d: %w", i, err)
		}
		rowLevel := "account"
		if row.CampaignID != nil {
			rowLevel = "campaign"
		}
		if rowLevel != level {
			continue
		}
		day, err := time.Parse(time.RFC3339, row.Date)
		if err != nil {
			return nil, fmt.Errorf("summary oracle: row %s: date %q: %w", row.ID, row.Date, err)
		}
		k := oracleKey{currency: row.Account.Currency}
		switch groupBy {
		case "account":
			k.account = r.AccountID
		case "campaign":
			k.account, k.campaign = r.AccountID, *row.CampaignID
		case "day":
			k.start, k.end = day, day
		case "week":
			k.start = day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
			k.end = k.start.AddDate(0, 0, 6)
		case "month":
			k.start = time.Date(day.Year(), day.Month(), 1, 0, 0, 0, 0, time.UTC)
			k.end = k.start.AddDate(0, 1, -1)
		}
		g := groups[k]
		if g == nil {
			g = newOracleGroup()
			groups[k] = g
		}
		if err := g.add(row, day); err != nil {
			return nil, fmt.Errorf("summary oracle: row %s: %w", row.ID, err)
		}
	}
	keys := make([]oracleKey, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b oracleKey) int {
		return cmp.Or(strings.Compare(a.currency, b.currency), strings.Compare(a.account, b.account),
			strings.Compare(a.campaign, b.campaign), a.start.Compare(b.start))
	})
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = groups[k].item(level, groupBy, k)
	}
	return out, nil
}

// oracleRow is the part of an insight row a summary reads.
type oracleRow struct {
	ID         string  `json:"id"`
	CampaignID *string `json:"campaignId"`
	Date       string  `json:"date"`
	Account    struct {
		Currency string `json:"currency"`
	} `json:"account"`
	PurchaseMeasurement string   `json:"purchaseMeasurement"`
	Spend               string   `json:"spend"`
	Impressions         int64    `json:"impressions"`
	Clicks              int64    `json:"clicks"`
	Purchases           *float64 `json:"purchases"`
	PurchaseValue       *float64 `json:"purchaseValue"`
}

type oracleKey struct {
	currency, account, campaign string
	start, end                  time.Time
}

// oracleSum is an exact decimal sum and the largest number of decimal
// places among the values added.
type oracleSum struct {
	v     big.Rat
	scale int
}

func (s *oracleSum) add(dec string) error {
	r, ok := new(big.Rat).SetString(dec)
	if !ok {
		return fmt.Errorf("%q is not a decimal", dec)
	}
	s.v.Add(&s.v, r)
	_, frac, _ := strings.Cut(dec, ".")
	s.scale = max(s.scale, len(frac))
	return nil
}

func (s *oracleSum) String() string { return s.v.FloatString(s.scale) }

type oracleGroup struct {
	rows, purchaseRows, valueRows int
	days                          map[time.Time]bool
	impressions, clicks           int64
	spend, valueSpend             oracleSum
	purchases, value              oracleSum
}

func newOracleGroup() *oracleGroup { return &oracleGroup{days: map[time.Time]bool{}} }

// float15 is the decimal of at most 15 significant digits that C's %.15g
// writes for v, in plain notation.
func float15(v float64) string {
	s := strconv.FormatFloat(v, 'g', 15, 64)
	if strings.ContainsAny(s, "e") {
		r, _ := new(big.Rat).SetString(s)
		exp, _ := strconv.Atoi(s[strings.IndexByte(s, 'e')+1:])
		mant, _, _ := strings.Cut(s, "e")
		_, frac, _ := strings.Cut(mant, ".")
		return r.FloatString(max(len(frac)-exp, 0))
	}
	return s
}

func (g *oracleGroup) add(r oracleRow, day time.Time) error {
	g.rows++
	g.days[day] = true
	g.impressions += r.Impressions
	g.clicks += r.Clicks
	if err := g.spend.add(r.Spend); err != nil {
		return fmt.Errorf("spend: %w", err)
	}
	measured := r.PurchaseMeasurement == "reported_purchase_value" || r.PurchaseMeasurement == "reported_purchase_count"
	if measured && r.Purchases != nil {
		g.purchaseRows++
		if err := g.purchases.add(float15(*r.Purchases)); err != nil {
			return err
		}
	}
	if measured && r.PurchaseValue != nil {
		g.valueRows++
		if err := g.value.add(float15(*r.PurchaseValue)); err != nil {
			return err
		}
		if err := g.valueSpend.add(r.Spend); err != nil {
			return err
		}
	}
	return nil
}

// ratio is num/den×mul rounded half away from zero to 4 places, or nil when
// den is 0.
func ratio(num, den *big.Rat, mul int64) any {
	if den.Sign() == 0 {
		return nil
	}
	q := new(big.Rat).Quo(num, den)
	q.Mul(q, big.NewRat(mul, 1))
	return q.FloatString(4)
}

func (g *oracleGroup) item(level, groupBy string, k oracleKey) map[string]any {
	var account, campaign, start, end any
	if groupBy == "account" || groupBy == "campaign" {
		account = k.account
	}
	if groupBy == "campaign" {
		campaign = k.campaign
	}
	if !k.start.IsZero() {
		start, end = k.start.Format(time.DateOnly), k.end.Format(time.DateOnly)
	}
	imp, clicks := new(big.Rat).SetInt64(g.impressions), new(big.Rat).SetInt64(g.clicks)
	item := map[string]any{
		"level": level, "currency": k.currency, "accountId": account, "campaignId": campaign,
		"periodStart": start, "periodEnd": end,
		"rows": float64(g.rows), "days": float64(len(g.days)), "spend": g.spend.String(),
		"impressions": float64(g.impressions), "clicks": float64(g.clicks),
		"ctr": ratio(clicks, imp, 100), "cpc": ratio(&g.spend.v, clicks, 1), "cpm": ratio(&g.spend.v, imp, 1000),
		"purchaseRows": float64(g.purchaseRows), "purchases": nil,
		"purchaseValueRows": float64(g.valueRows), "purchaseValue": nil, "roas": nil,
	}
	if g.purchaseRows > 0 {
		item["purchases"] = g.purchases.String()
	}
	if g.valueRows > 0 {
		item["purchaseValue"] = g.value.String()
		item["roas"] = ratio(&g.value.v, &g.valueSpend.v, 1)
	}
	return item
}
