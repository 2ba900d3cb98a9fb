package server

import (
	"context"
	"encoding/json"
	"time"

	"github.com/adsnap/svc/api-server/internal/query"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/gin-gonic/gin"
)

// GET /insights/freshness (openapi.yaml, readInsightFreshness; issue 46):
// when the organization's data was last imported and which days that import
// changed, from the import's own record, beside dataAsOf. A small endpoint
// of its own rather than a field of the summary's meta: freshness is asked
// for before any total, it must not cost a summary, and every client (the
// SDK, svc mcp's svc_freshness) reads it with one cheap request. It is an
// endpoint value (endpoints.go) served by serve like the others: its read
// goes through readRows' key check; answerFreshness writes its body, which
// is not the offset-paged envelope.

// freshnessBody is InsightFreshnessResponse of openapi.yaml.
type freshnessBody struct {
	Data struct {
		DataAsOf   string      `json:"dataAsOf"`
		LastImport *lastImport `json:"lastImport"`
	} `json:"data"`
	Meta struct {
		Source          string `json:"source"`
		LiveMetaRequest bool   `json:"liveMetaRequest"`
		GeneratedAt     string `json:"generatedAt"`
		Note            string `json:"note"`
	} `json:"meta"`
}

type lastImport struct {
	CommittedAt string   `json:"committedAt"`
	Upserts     int64    `json:"upserts"`
	Deletes     int64    `json:"deletes"`
	ChangedDays []string `json:"changedDays"`
}

// freshnessPage is the read's answer as a rowsPage, so that it comes only
// through readRows; answerFreshness encodes it.
type freshnessPage struct{ f store.Freshness }

func (p *freshnessPage) Len() int { return 1 }
func (p *freshnessPage) Release() {}

// AppendJSON is never called (answerFreshness writes the body); it gives
// the data object all the same.
func (p *freshnessPage) AppendJSON(b []byte, _ int) ([]byte, bool) {
	js, err := json.Marshal(p.data(time.Time{}).Data)
	return append(b, js...), err == nil
}

// data is the body of the page, generated at now.
func (p *freshnessPage) data(now time.Time) *freshnessBody {
	var body freshnessBody
	asOf := p.f.DataAsOf
	if asOf.IsZero() {
		asOf = time.Unix(0, 0) // nothing imported for the organization yet
	}
	body.Data.DataAsOf = asOf.UTC().Format(time.RFC3339)
	if p.f.Imported {
		body.Data.LastImport = &lastImport{CommittedAt: p.f.CommittedAt.UTC().Format(time.RFC3339Nano),
			Upserts: p.f.Upserts, Deletes: p.f.Deletes, ChangedDays: p.f.ChangedDays}
	}
	body.Meta.Source, body.Meta.GeneratedAt, body.Meta.Note = "stored_snapshot", now.UTC().Format(time.RFC3339), Note
	return &body
}

// readFreshness is the read of GET /insights/freshness: the last import.
// There is no accountId, so the account is always found.
func readFreshness(ctx context.Context, _ *Server, st Store, orgID string, _ query.Params, pre store.Prelude) (store.Meta, rowsPage, error) {
	f, err := st.InsightFreshness(ctx, orgID, pre)
	f.AccountFound = true
	return f.Meta, &freshnessPage{f: f}, err
}

// answerFreshness writes the 200 of GET /insights/freshness.
func answerFreshness(s *Server, c *gin.Context, _ *query.Params, _ store.Meta, rows rowsPage) {
	defer rows.Release()
	p, ok := rows.(*freshnessPage)
	if !ok {
		s.handleError(c, errEncode)
		return
	}
	b, err := json.Marshal(p.data(s.now()))
	if err != nil {
		s.handleError(c, err)
		return
	}
	writeJSON(c, b)
}
