package server

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"

	"github.com/adsnap/svc/api-server/internal/query"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/gin-gonic/gin"
)

// GET /insights/summary (openapi.yaml, readInsightSummary; issue 34): the
// groups of the organization's insight rows, one currency and one level
// each, summed exactly by the store; the ratios are computed here from
// those sums. The request takes the pipeline of the lists (routes.go) and
// is charged as one request.

// SummaryStore is a Store that totals insight rows (*store.Store,
// *store.Routed). A Store without it answers the summary with a 500.
type SummaryStore interface {
	InsightSummary(ctx context.Context, orgID string, p store.SummaryParams, pre store.Prelude) (store.Meta, []store.SummaryGroup, error)
}

// capNoteSummary is added to Note on a summary page that stops at the offset
// limit while groups remain.
const capNoteSummary = " More groups exist beyond the offset limit (10000): nextOffset is null here only because of that limit. Read them per account (accountId) when grouping by account or campaign, or with a narrower date range (from, to) when grouping by day, week or month."

// errNoSummary: the configured Store cannot total rows (a bug of the set-up).
var errNoSummary = errors.New("the store does not implement InsightSummary")

func (s *Server) insightSummary(c *gin.Context) {
	q, ok := s.page(c, query.Summary)
	if !ok {
		return
	}
	ctx, cancel := s.dbContext(c)
	defer cancel()
	var (
		m      store.Meta
		groups []store.SummaryGroup
		err    = errNoSummary
	)
	if ss, ok := s.store.(SummaryStore); ok {
		m, groups, err = ss.InsightSummary(ctx, state(c).orgID(), store.SummaryParams{
			Limit: q.Limit + 1, Offset: q.Offset, AccountID: q.AccountID, From: q.From, To: q.To,
			Level: q.Level, GroupBy: q.GroupBy, Options: q.Options,
		}, s.prelude(c))
	}
	settled := s.settle(c, err) // admitted still: it may read the key's state (a moved epoch)
	s.leave(state(c))
	if !settled || !s.found(c, m, err) {
		return
	}
	respond(s, c, q, m, summaryPage{groups: groups, level: q.Level, opts: q.Options}, capNoteSummary)
}

// InsightSummary passes the summary on when the observed store has one.
func (o observedStore) InsightSummary(ctx context.Context, orgID string, p store.SummaryParams, pre store.Prelude) (store.Meta, []store.SummaryGroup, error) {
	ss, ok := o.next.(SummaryStore)
	if !ok {
		return store.Meta{}, nil, errNoSummary
	}
	ctx, sp := child(ctx, o.tracer, "query insight summary")
	m, groups, err := ss.InsightSummary(ctx, orgID, p, pre)
	o.done(sp, "insight summary", err)
	return m, groups, err
}

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

// summaryGroup is InsightSummaryGroup of openapi.yaml, in its order.
type summaryGroup struct {
	Level             string  `json:"level"`
	Currency          string  `json:"currency"`
	AccountID         *string `json:"accountId"`
	CampaignID        *string `json:"campaignId"`
	PeriodStart       *string `json:"periodStart"`
	PeriodEnd         *string `json:"periodEnd"`
	Rows              int64   `json:"rows"`
	Days              int64   `json:"days"`
	Spend             string  `json:"spend"`
	Impressions       int64   `json:"impressions"`
	Clicks            int64   `json:"clicks"`
	CTR               *string `json:"ctr"`
	CPC               *string `json:"cpc"`
	CPM               *string `json:"cpm"`
	PurchaseRows      int64   `json:"purchaseRows"`
	Purchases         *string `json:"purchases"`
	PurchaseValueRows int64   `json:"purchaseValueRows"`
	PurchaseValue     *string `json:"purchaseValue"`
	ROAS              *string `json:"roas"`
}

func summaryItem(level string, g *store.SummaryGroup) summaryGroup {
	orNull := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	spend := rat(g.Spend)
	clicks, imp := new(big.Rat).SetInt64(g.Clicks), new(big.Rat).SetInt64(g.Impressions)
	out := summaryGroup{
		Level: level, Currency: g.Currency,
		AccountID: orNull(g.AccountID), CampaignID: orNull(g.CampaignID),
		PeriodStart: orNull(g.PeriodStart), PeriodEnd: orNull(g.PeriodEnd),
		Rows: g.Rows, Days: g.Days, Spend: g.Spend, Impressions: g.Impressions, Clicks: g.Clicks,
		CTR: ratio(clicks, imp, 100), CPC: ratio(spend, clicks, 1), CPM: ratio(spend, imp, 1000),
		PurchaseRows: g.PurchaseRows, PurchaseValueRows: g.PurchaseValueRows,
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
