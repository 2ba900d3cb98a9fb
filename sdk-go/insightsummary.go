package svc

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"net/url"
	"slices"
	"strings"
)

// summaryEndpoint is the path of the insight summaries.
const summaryEndpoint = "/insights/summary"

// GroupBy says how [InsightsService.Summary] groups the insight rows of one
// level, always within one currency.
type GroupBy string

// The groupings of Insights.Summary.
const (
	// GroupByTotal is one group per currency (the service's default).
	GroupByTotal GroupBy = "total"
	// GroupByAccount is one group per account.
	GroupByAccount GroupBy = "account"
	// GroupByCampaign is one group per campaign; only with LevelCampaign.
	GroupByCampaign GroupBy = "campaign"
	// GroupByDay is one group per day.
	GroupByDay GroupBy = "day"
	// GroupByWeek is one group per ISO week, Monday to Sunday.
	GroupByWeek GroupBy = "week"
	// GroupByMonth is one group per calendar month.
	GroupByMonth GroupBy = "month"
	// GroupByAccountDay is one group per account and day.
	GroupByAccountDay GroupBy = "account,day"
	// GroupByCampaignDay is one group per campaign and day; only with
	// LevelCampaign.
	GroupByCampaignDay GroupBy = "campaign,day"
)

// GroupBys are the groupings the service accepts, in the order of its
// documentation.
var GroupBys = []GroupBy{GroupByTotal, GroupByAccount, GroupByCampaign, GroupByDay, GroupByWeek, GroupByMonth,
	GroupByAccountDay, GroupByCampaignDay}

// InsightSummaryOptions are the options of Insights.Summary and
// Insights.SummaryAll. Limit and Offset page the groups (not the rows);
// AccountID, From and To choose the rows as for Insights.List.
type InsightSummaryOptions struct {
	ListOptions
	From Date
	To   Date
	// Level chooses the rows to total: LevelAccount or LevelCampaign.
	// Required: the two levels overlap, so one answer never holds both.
	Level Level
	// GroupBy chooses the groups; zero means GroupByTotal.
	GroupBy GroupBy
	// SummaryAnswers are the optional answers: ranking, a second period
	// and filters (summaryoptions.go).
	SummaryAnswers
}

func (o *InsightSummaryOptions) query(today Date) (url.Values, error) {
	q, problems := o.values()
	switch o.Level {
	case LevelAccount, LevelCampaign:
		q.Set("level", string(o.Level))
	case "":
		problems = append(problems, "level is required: account or campaign (the two levels overlap and are never totalled together)")
	default:
		problems = append(problems, fmt.Sprintf("level must be account or campaign, not %q", o.Level))
	}
	switch {
	case o.GroupBy == "":
	case !slices.Contains(GroupBys, o.GroupBy):
		names := make([]string, len(GroupBys))
		for i, g := range GroupBys {
			names[i] = string(g)
		}
		problems = append(problems, fmt.Sprintf("groupBy must be one of %s, not %q", strings.Join(names, ", "), o.GroupBy))
	case (o.GroupBy == GroupByCampaign || o.GroupBy == GroupByCampaignDay) && o.Level == LevelAccount:
		problems = append(problems, "groupBy campaign needs level campaign: account-level rows have no campaign")
	default:
		q.Set("groupBy", string(o.GroupBy))
	}
	problems = o.SummaryAnswers.query(q, problems, today)
	return dateQuery(q, problems, o.From, o.To, today)
}

// InsightSummaryGroup is one group of GET /insights/summary: the totals of
// the insight rows of one currency and one level, of one account, campaign
// or period when the grouping has one. Amounts are in Currency; groups of
// different currencies or levels must never be added together.
//
// Decimal sums are exact. CTR (a percentage), CPC, CPM and ROAS are
// recomputed by the service from the sums, rounded half away from zero to 4
// decimal places, and nil when their denominator is 0. Purchases,
// PurchaseValue and ROAS cover only the rows with purchase evidence
// (PurchaseRows, PurchaseValueRows of Rows): nil means unknown, never zero.
// Reach is not totalled: daily reach does not add up.
type InsightSummaryGroup struct {
	// Level is the level of every row of the group.
	Level Level `json:"level"`
	// Currency is the account currency of every row of the group.
	Currency string `json:"currency"`
	// AccountID is the account of the group (an Account.ID), with
	// GroupByAccount and GroupByCampaign; nil otherwise.
	AccountID *string `json:"accountId"`
	// CampaignID is the campaign of the group, with GroupByCampaign; nil
	// otherwise.
	CampaignID *string `json:"campaignId"`
	// PeriodStart and PeriodEnd are the first and last day of the calendar
	// period of the group (day, ISO week, month), with GroupByDay,
	// GroupByWeek and GroupByMonth; nil otherwise. The sums cover only the
	// days of the period within the request's From..To.
	PeriodStart *Date `json:"periodStart"`
	PeriodEnd   *Date `json:"periodEnd"`
	// Rows is the number of insight rows of the group, and Days the number
	// of distinct dates among them.
	Rows int `json:"rows"`
	Days int `json:"days"`
	// Spend is the exact sum of the rows' spend, in Currency.
	Spend Decimal `json:"spend"`
	// Impressions and Clicks are the sums of the rows'.
	Impressions int64 `json:"impressions"`
	Clicks      int64 `json:"clicks"`
	// CTR is Clicks / Impressions × 100 (a percentage, as Insight.CTR),
	// CPC is Spend / Clicks and CPM is Spend / Impressions × 1000, each to 4
	// decimal places; nil when the denominator is 0.
	CTR *Decimal `json:"ctr"`
	CPC *Decimal `json:"cpc"`
	CPM *Decimal `json:"cpm"`
	// PurchaseRows is the number of rows with purchase evidence, and
	// Purchases the exact sum of their purchases; nil when there is none.
	PurchaseRows int      `json:"purchaseRows"`
	Purchases    *Decimal `json:"purchases"`
	// PurchaseValueRows is the number of rows with a purchase value, and
	// PurchaseValue the exact sum of their values in Currency; nil when
	// there is none.
	PurchaseValueRows int      `json:"purchaseValueRows"`
	PurchaseValue     *Decimal `json:"purchaseValue"`
	// ROAS is PurchaseValue / the spend of the PurchaseValueRows rows, to 4
	// decimal places; nil when there is no such row or their spend is 0.
	ROAS *Decimal `json:"roas"`
	// AccountName, CampaignName and Status name the group's account and
	// campaign, with the groupings by account or campaign; nil otherwise.
	// Status is the campaign's, or for a group by account ACTIVE or
	// INACTIVE. Names are data, never instructions.
	AccountName  *string `json:"accountName,omitempty"`
	CampaignName *string `json:"campaignName,omitempty"`
	Status       *string `json:"status,omitempty"`
	// Previous (the same figures over CompareFrom..CompareTo) and Change
	// are set with SummaryAnswers.CompareFrom; nil otherwise.
	Previous *SummaryFigures `json:"previous,omitempty"`
	Change   *SummaryChange  `json:"change,omitempty"`
}

// InsightSummaryPage is one page of insight summary groups. API: GET
// /insights/summary.
type InsightSummaryPage = Page[InsightSummaryGroup]

// Summary returns one page of the totals of the insight rows of one level
// (opts.Level, required) between From and To, grouped by opts.GroupBy within
// each currency, computed by the service in one request: ordered by
// currency, account, campaign, then period. API: GET /insights/summary.
func (s *InsightsService) Summary(ctx context.Context, opts *InsightSummaryOptions) (*InsightSummaryPage, error) {
	return list[InsightSummaryGroup](ctx, s.client, summaryEndpoint, copyOrZero(opts), false)
}

// SummaryAll iterates over every group of the summary, 100 a page unless
// opts.Limit says otherwise, paced and retried as All is. Past the offset
// limit (more than 10,100 groups: accounts or campaigns), it reads the
// remaining groups account by account (those then come by account); none is
// yielded twice. It yields an error once and stops: [ErrIncomplete] when no
// split reaches the rest (day, week and month groups past the limit, or one
// account's campaigns), [ErrSnapshotMoved] when the snapshot moves. API: GET
// /insights/summary.
func (s *InsightsService) SummaryAll(ctx context.Context, opts *InsightSummaryOptions) iter.Seq2[InsightSummaryGroup, error] {
	return values(allSummary(ctx, s.client, opts))
}

// compareGroups orders groups as the service does: currency, account,
// campaign (byte order), then period.
func compareGroups(a, b InsightSummaryGroup) int {
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	day := func(p *Date) string {
		if p == nil {
			return ""
		}
		return p.String()
	}
	return cmp.Or(strings.Compare(a.Currency, b.Currency), strings.Compare(str(a.AccountID), str(b.AccountID)),
		strings.Compare(str(a.CampaignID), str(b.CampaignID)), strings.Compare(day(a.PeriodStart), day(b.PeriodStart)))
}

// allSummary iterates over every group. A first listing reads the groups in
// the service's order; when it stops at the offset limit while groups
// remain, the groups of account and campaign groupings are read again per
// account, and those after the last one yielded (in the service's order) are
// yielded: the first listing yielded a contiguous run of that order, from
// opts.Offset.
func allSummary(ctx context.Context, c *Client, opts *InsightSummaryOptions) iter.Seq2[Row[InsightSummaryGroup], error] {
	o := bulkOptions(opts)
	return func(yield func(Row[InsightSummaryGroup], error) bool) {
		if _, err := o.query(DateOf(c.cfg.now().UTC())); err != nil {
			yield(Row[InsightSummaryGroup]{}, err)
			return
		}
		w := newWalk(c, summaryEndpoint, yield)
		last, ok, stopped := summaryListing(ctx, w, o, nil)
		if !ok || !stopped {
			return
		}
		what := "the groups"
		if o.AccountID != "" {
			what = "the groups of account " + o.AccountID
		}
		why := fmt.Sprintf("%s do not fit below the offset limit (%d)", what, MaxOffset)
		// Ranked or filtered groups are not in the order that a read per
		// account continues.
		if o.AccountID != "" || (o.GroupBy != GroupByAccount && o.GroupBy != GroupByCampaign) || o.ranked() {
			w.incomplete(why, nil)
			return
		}
		ids, ok := accountIDs(ctx, w, why)
		if !ok {
			return
		}
		for _, id := range ids {
			po := o
			po.AccountID, po.Offset = id, 0
			_, ok, stopped := summaryListing(ctx, w, po, last)
			if !ok {
				return
			}
			if stopped {
				w.incomplete(fmt.Sprintf("the groups of account %s do not fit below the offset limit (%d)", id, MaxOffset), nil)
				return
			}
		}
	}
}

// summaryListing yields the groups of one listing that come after the
// group after in the service's order (all of them when after is nil),
// following nextOffset, and returns the last group it yielded. stopped
// reports that the listing ended at the offset limit while groups may
// remain.
func summaryListing(ctx context.Context, w *walk[InsightSummaryGroup], o InsightSummaryOptions, after *InsightSummaryGroup) (last *InsightSummaryGroup, ok, stopped bool) {
	for {
		page, ok := fetchPage[InsightSummaryGroup](ctx, w, w.endpoint, &o)
		if !ok {
			return nil, false, false
		}
		for i, g := range page.Data {
			if after != nil && compareGroups(g, *after) <= 0 {
				continue
			}
			if !w.emit(g, rawAt(page, i)) {
				return nil, false, false
			}
			last = &page.Data[i]
		}
		more, ok := w.next(page.Meta, &o.ListOptions)
		if !ok {
			return nil, false, false
		}
		if !more {
			return last, true, capped(page.Meta)
		}
	}
}
