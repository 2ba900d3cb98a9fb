package server

import (
	"net/http"
	"time"

	"github.com/adsnap/svc/api-server/internal/query"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/gin-gonic/gin"
)

// page runs steps 7 and 8 of the pipeline: it validates the query (400 with
// every problem) and checks accountId against the organization (404). It
// returns false when it has answered.
func (s *Server) page(c *gin.Context, ep query.Endpoint) (query.Params, store.Meta, bool) {
	q, problems := query.Parse(c.Request.URL.RawQuery, ep, s.now())
	if len(problems) > 0 {
		s.fail(c, http.StatusBadRequest, problems)
		return q, store.Meta{}, false
	}
	m, err := s.store.Meta(c.Request.Context(), state(c).principal.OrganizationID, q.AccountID)
	if err != nil {
		s.handleError(c, err)
		return q, m, false
	}
	if !m.AccountFound {
		s.handleError(c, errAccountNotFound)
		return q, m, false
	}
	return q, m, true
}

func listParams(q query.Params) store.ListParams {
	return store.ListParams{Limit: q.Limit + 1, Offset: q.Offset, AccountID: q.AccountID, From: q.From, To: q.To}
}

// respond writes the envelope of a page read with limit+1 rows.
func respond[T any](s *Server, c *gin.Context, q query.Params, m store.Meta, data []T) {
	more := len(data) > q.Limit
	if more {
		data = data[:q.Limit]
	}
	asOf := m.DataAsOf
	if asOf.IsZero() {
		asOf = time.Unix(0, 0) // nothing imported for the organization yet
	}
	var next *int
	if n := q.Offset + len(data); more && n <= query.MaxOffset {
		next = &n
	}
	c.JSON(http.StatusOK, envelope[T]{Data: data, Meta: meta{
		Source: "stored_snapshot", LiveMetaRequest: false,
		Limit: q.Limit, Offset: q.Offset, NextOffset: next, Returned: len(data),
		GeneratedAt: s.now().UTC().Format(time.RFC3339),
		DataAsOf:    asOf.UTC().Format(time.RFC3339),
		Note:        Note,
	}})
}

func (s *Server) listAccounts(c *gin.Context) {
	q, m, ok := s.page(c, query.Accounts)
	if !ok {
		return
	}
	rows, err := s.store.Accounts(c.Request.Context(), state(c).principal.OrganizationID, listParams(q))
	if err != nil {
		s.handleError(c, err)
		return
	}
	data := make([]account, len(rows))
	for i := range rows {
		r := &rows[i]
		data[i] = account{ID: r.ID, AccountName: r.AccountName, Currency: r.Currency, Timezone: r.Timezone,
			IsActive: r.IsActive, LastSyncAt: timePtr(r.LastSyncAt)}
	}
	respond(s, c, q, m, data)
}

func (s *Server) listCampaigns(c *gin.Context) {
	q, m, ok := s.page(c, query.Campaigns)
	if !ok {
		return
	}
	rows, err := s.store.Campaigns(c.Request.Context(), state(c).principal.OrganizationID, listParams(q))
	if err != nil {
		s.handleError(c, err)
		return
	}
	data := make([]campaign, len(rows))
	for i := range rows {
		r := &rows[i]
		data[i] = campaign{ID: r.ID, PlatformAdAccountID: r.PlatformAdAccountID, Name: r.Name,
			Objective: r.Objective, Status: r.Status, EffectiveStatus: nullString(r.EffectiveStatus),
			DailyBudget: nullString(r.DailyBudget), LifetimeBudget: nullString(r.LifetimeBudget),
			SyncedAt: timePtr(r.SyncedAt), Account: accountRef{Currency: r.Currency, Timezone: r.Timezone}}
	}
	respond(s, c, q, m, data)
}

func (s *Server) listInsights(c *gin.Context) {
	q, m, ok := s.page(c, query.Insights)
	if !ok {
		return
	}
	rows, err := s.store.Insights(c.Request.Context(), state(c).principal.OrganizationID, listParams(q))
	if err != nil {
		s.handleError(c, err)
		return
	}
	data := make([]insight, len(rows))
	for i := range rows {
		r := &rows[i]
		date := r.Date + "T00:00:00Z"
		in := insight{ID: r.ID, PlatformAdAccountID: r.PlatformAdAccountID, AttributionWindow: r.AttributionWindow,
			CampaignID: nullString(r.CampaignID), Date: &date, SyncedAt: timePtr(r.SyncedAt),
			Account:             accountRef{Currency: r.Currency, Timezone: r.Timezone},
			PurchaseMeasurement: r.PurchaseMeasurement,
			Spend:               r.Spend, CTR: r.CTR, CPC: r.CPC, CPM: r.CPM,
			Impressions: r.Impressions, Reach: r.Reach, Clicks: r.Clicks}
		// Purchase evidence is reported only when measured (SPEC §2 rule 1).
		if r.PurchaseMeasurement != "unavailable" {
			in.Purchases, in.PurchaseValue, in.ROAS = nullFloat(r.Purchases), nullFloat(r.PurchaseValue), nullFloat(r.ROAS)
		}
		data[i] = in
	}
	respond(s, c, q, m, data)
}
