package server

import (
	"net/http"
	"sync"
	"time"
	"unsafe"

	"github.com/adsnap/svc/api-server/internal/query"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/gin-gonic/gin"
)

// page runs step 7 of the pipeline: it validates the query (400 with every
// problem; a pending key is read first, confirm). It returns false when it
// has answered.
func (s *Server) page(c *gin.Context, ep query.Endpoint) (query.Params, bool) {
	q, problems := query.Parse(c.Request.URL.RawQuery, ep, s.now())
	if len(problems) > 0 {
		if !s.confirm(c) {
			return q, false
		}
		s.fail(c, http.StatusBadRequest, problems)
		return q, false
	}
	return q, true
}

// found runs step 8 once the page is read: the store error, or accountId
// not in the key's organization (404). It returns false when it has answered.
func (s *Server) found(c *gin.Context, m store.Meta, err error) bool {
	s.noteDatabase(c.Request.Context(), err)
	if err != nil {
		s.handleError(c, err)
		return false
	}
	if !m.AccountFound {
		s.handleError(c, errAccountNotFound)
		return false
	}
	return true
}

func listParams(q query.Params) store.ListParams {
	return store.ListParams{Limit: q.Limit + 1, Offset: q.Offset, AccountID: q.AccountID, From: q.From, To: q.To}
}

// respond writes the envelope of a page read with limit+1 rows. capNote is
// added to meta.note when the page stops at the offset limit while rows
// remain.
func respond[T any](s *Server, c *gin.Context, q query.Params, m store.Meta, data []T, capNote string) {
	more := len(data) > q.Limit
	if more {
		data = data[:q.Limit]
	}
	if data == nil {
		data = []T{} // SPEC §2: data is an array, also when it is empty
	}
	asOf := m.DataAsOf
	if asOf.IsZero() {
		asOf = time.Unix(0, 0) // nothing imported for the organization yet
	}
	var next *int
	note := Note
	if n := q.Offset + len(data); more && n <= query.MaxOffset {
		next = &n
	} else if more {
		note += capNote
	}
	env := envelope[T]{Data: data, Meta: meta{
		Source: "stored_snapshot", LiveMetaRequest: false,
		Limit: q.Limit, Offset: q.Offset, NextOffset: next, Returned: len(data),
		GeneratedAt: s.now().UTC().Format(time.RFC3339),
		DataAsOf:    asOf.UTC().Format(time.RFC3339),
		Note:        note,
	}}
	bp := bufPool.Get().(*[]byte)
	b, ok := appendEnvelope((*bp)[:0], &env)
	if ok {
		writeJSON(c, b)
	} else {
		c.JSON(http.StatusOK, env)
	}
	if cap(b) <= 1<<20 {
		*bp = b[:0]
		bufPool.Put(bp)
	}
}

func (s *Server) listAccounts(c *gin.Context) {
	q, ok := s.page(c, query.Accounts)
	if !ok {
		return
	}
	ctx, cancel := s.dbContext(c)
	defer cancel()
	m, rows, err := s.store.AccountsPage(ctx, state(c).orgID(), listParams(q), s.prelude(c))
	if !s.settle(c, err) || !s.found(c, m, err) {
		return
	}
	data := make([]account, len(rows))
	for i := range rows {
		r := &rows[i]
		data[i] = account{ID: r.ID, AccountName: r.AccountName, Currency: r.Currency, Timezone: r.Timezone,
			IsActive: r.IsActive, LastSyncAt: timePtr(r.LastSyncAt)}
	}
	respond(s, c, q, m, data, capNoteAccounts)
}

func (s *Server) listCampaigns(c *gin.Context) {
	q, ok := s.page(c, query.Campaigns)
	if !ok {
		return
	}
	ctx, cancel := s.dbContext(c)
	defer cancel()
	m, rows, err := s.store.CampaignsPage(ctx, state(c).orgID(), listParams(q), s.prelude(c))
	if !s.settle(c, err) || !s.found(c, m, err) {
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
	respond(s, c, q, m, data, capNoteCampaigns)
}

func (s *Server) listInsights(c *gin.Context) {
	q, ok := s.page(c, query.Insights)
	if !ok {
		return
	}
	sc := insightScratchPool.Get().(*insightScratch)
	defer sc.release()
	ctx, cancel := s.dbContext(c)
	defer cancel()
	m, rows, err := s.store.InsightsPage(ctx, state(c).orgID(), listParams(q), &sc.buf, s.prelude(c))
	if !s.settle(c, err) || !s.found(c, m, err) {
		return
	}
	if cap(sc.data) < len(rows) {
		sc.data, sc.dates = make([]insight, len(rows)), make([]string, len(rows))
	}
	data, dates := sc.data[:len(rows)], sc.dates[:len(rows)]
	sc.text = sc.text[:0]
	for i := range rows {
		r := &rows[i]
		dates[i] = sc.date(r.Date)
		date := &dates[i]
		// The nullable fields point into rows (no copy each): rows stay until sc.release, after respond.
		in := insight{ID: r.ID, PlatformAdAccountID: r.PlatformAdAccountID, AttributionWindow: r.AttributionWindow,
			CampaignID: stringIn(&r.CampaignID), Date: date, SyncedAt: timeIn(&r.SyncedAt),
			Account:             accountRef{Currency: r.Currency, Timezone: r.Timezone},
			PurchaseMeasurement: r.PurchaseMeasurement,
			Spend:               r.Spend, CTR: r.CTR, CPC: r.CPC, CPM: r.CPM,
			Impressions: r.Impressions, Reach: r.Reach, Clicks: r.Clicks}
		// Purchase evidence is reported only when measured (SPEC §2 rule 1).
		if r.PurchaseMeasurement != "unavailable" {
			in.Purchases, in.PurchaseValue, in.ROAS = floatIn(&r.Purchases), floatIn(&r.PurchaseValue), floatIn(&r.ROAS)
		}
		data[i] = in
	}
	respond(s, c, q, m, data, capNoteInsights)
}

// insightScratch is the memory of one /insights response, reused through
// insightScratchPool: the rows read (with their text), their wire form and
// the dates. Profiles showed these at about 85% of the bytes allocated per
// request (~40 KB), and the collector's and allocator's work on them at a
// sixth of svc-api's CPU. Nothing of it outlives the response: respond
// encodes into its own buffer before release.
type insightScratch struct {
	buf   store.InsightBuf
	data  []insight
	dates []string // the wire dates, their text in text
	text  []byte
}

var insightScratchPool = sync.Pool{New: func() any { return new(insightScratch) }}

// date returns d + "T00:00:00Z", its text in sc.text.
func (sc *insightScratch) date(d string) string {
	if cap(sc.text)-len(sc.text) < len(d)+10 {
		sc.text = make([]byte, 0, max(2048, len(d)+10))
	}
	n := len(sc.text)
	sc.text = append(append(sc.text, d...), "T00:00:00Z"...)
	return unsafe.String(&sc.text[n], len(sc.text)-n)
}

// release returns sc to the pool. The wire values are cleared so that a
// pooled scratch does not keep a former page's text alive.
func (sc *insightScratch) release() {
	if cap(sc.data) > 2*query.MaxLimit {
		return
	}
	clear(sc.data[:cap(sc.data)])
	clear(sc.dates[:cap(sc.dates)])
	insightScratchPool.Put(sc)
}
