package server

import (
	"github.com/adsnap/svc/api-server/internal/query"
	"github.com/adsnap/svc/api-server/internal/store"
)

// The answers of GET /insights/summary (issue 46; DESIGN §4a): the names and
// status of groups by account or campaign, and with compareFrom/compareTo
// the group's figures over the second period (previous) and their change.
// The arithmetic is the store's (store/summary_figures.go).

// answerGroup is InsightSummaryGroup of openapi.yaml with the answers, in
// its order; the fields of the answers are left out where they do not apply.
type answerGroup struct {
	summaryGroup
	AccountName  *string  `json:"accountName,omitempty"`
	CampaignName *string  `json:"campaignName,omitempty"`
	Status       *string  `json:"status,omitempty"`
	Previous     *figures `json:"previous,omitempty"`
	Change       *change  `json:"change,omitempty"`
}

// figures is InsightSummaryFigures: a group's figures (summaryGroup's, and
// over the second period its previous).
type figures struct {
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

// change is InsightSummaryChange: per figure, current − previous, and
// that over |previous| (4 decimal places); null where a figure is null or,
// for the relative change, the previous figure is 0.
type change struct {
	Spend                 *string `json:"spend"`
	SpendRelative         *string `json:"spendRelative"`
	Impressions           *string `json:"impressions"`
	ImpressionsRelative   *string `json:"impressionsRelative"`
	Clicks                *string `json:"clicks"`
	ClicksRelative        *string `json:"clicksRelative"`
	Purchases             *string `json:"purchases"`
	PurchasesRelative     *string `json:"purchasesRelative"`
	PurchaseValue         *string `json:"purchaseValue"`
	PurchaseValueRelative *string `json:"purchaseValueRelative"`
	CTR                   *string `json:"ctr"`
	CTRRelative           *string `json:"ctrRelative"`
	CPC                   *string `json:"cpc"`
	CPCRelative           *string `json:"cpcRelative"`
	CPM                   *string `json:"cpm"`
	CPMRelative           *string `json:"cpmRelative"`
	ROAS                  *string `json:"roas"`
	ROASRelative          *string `json:"roasRelative"`
}

// rankNote is added to meta.note when the groups are ranked.
const rankNote = " Ranked within each currency: amounts in different currencies are never added or ranked against each other."

// Note is the summary's addition to meta.note.
func (p summaryPage) Note() string {
	if p.opts != nil && p.opts.Sort != "" {
		return rankNote
	}
	return ""
}

func answerItem(item summaryGroup, g *store.SummaryGroup, opts *query.SummaryOptions) answerGroup {
	out := answerGroup{summaryGroup: item}
	if g.AccountID != "" {
		out.AccountName, out.Status = &g.AccountName, &g.Status
	}
	if g.CampaignID != "" {
		out.CampaignName = &g.CampaignName
	}
	if opts == nil || opts.CompareFrom == "" || g.Previous == nil {
		return out
	}
	previous := summaryItem(item.Level, g.Previous).figures
	out.Previous = &previous
	ch := store.FigureChanges(g, g.Previous)
	// ch is in the order of query.SummaryFields: spend, impressions,
	// clicks, purchases, purchaseValue, ctr, cpc, cpm, roas.
	c := change{}
	targets := [][2]**string{{&c.Spend, &c.SpendRelative}, {&c.Impressions, &c.ImpressionsRelative}, {&c.Clicks, &c.ClicksRelative},
		{&c.Purchases, &c.PurchasesRelative}, {&c.PurchaseValue, &c.PurchaseValueRelative}, {&c.CTR, &c.CTRRelative},
		{&c.CPC, &c.CPCRelative}, {&c.CPM, &c.CPMRelative}, {&c.ROAS, &c.ROASRelative}}
	for i, t := range targets {
		*t[0], *t[1] = orNull(ch[i].Absolute), orNull(ch[i].Relative)
	}
	out.Change = &c
	return out
}
