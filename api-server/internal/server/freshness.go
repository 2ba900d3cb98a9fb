package server

import (
	"context"
	"encoding/json"
	"errors"
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
// SDK, svc mcp's svc_freshness) reads it with one cheap request.

// FreshnessStore is a Store that reads the last import (*store.Store,
// *store.Routed). A Store without it answers with a 500.
type FreshnessStore interface {
	InsightFreshness(ctx context.Context, orgID string, pre store.Prelude) (store.Freshness, error)
}

var errNoFreshness = errors.New("the store does not implement InsightFreshness")

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

func (s *Server) insightFreshness(c *gin.Context) {
	if _, ok := s.page(c, query.Freshness); !ok {
		return
	}
	ctx, cancel := s.dbContext(c)
	defer cancel()
	f, err := store.Freshness{}, errNoFreshness
	if fs, ok := s.store.(FreshnessStore); ok {
		f, err = fs.InsightFreshness(ctx, state(c).orgID(), s.prelude(c))
	}
	settled := s.settle(c, err)
	s.leave(state(c))
	f.AccountFound = true // no accountId here
	if !settled || !s.found(c, f.Meta, err) {
		return
	}
	var body freshnessBody
	asOf := f.DataAsOf
	if asOf.IsZero() {
		asOf = time.Unix(0, 0) // nothing imported for the organization yet
	}
	body.Data.DataAsOf = asOf.UTC().Format(time.RFC3339)
	if f.Imported {
		body.Data.LastImport = &lastImport{CommittedAt: f.CommittedAt.UTC().Format(time.RFC3339Nano),
			Upserts: f.Upserts, Deletes: f.Deletes, ChangedDays: f.ChangedDays}
	}
	body.Meta.Source, body.Meta.GeneratedAt, body.Meta.Note = "stored_snapshot", s.now().UTC().Format(time.RFC3339), Note
	b, err := json.Marshal(&body)
	if err != nil {
		s.handleError(c, err)
		return
	}
	writeJSON(c, b)
}

// InsightFreshness passes the read on when the observed store has one.
func (o observedStore) InsightFreshness(ctx context.Context, orgID string, pre store.Prelude) (store.Freshness, error) {
	fs, ok := o.next.(FreshnessStore)
	if !ok {
		return store.Freshness{}, errNoFreshness
	}
	ctx, sp := child(ctx, o.tracer, "query insight freshness")
	f, err := fs.InsightFreshness(ctx, orgID, pre)
	o.done(sp, "insight freshness", err)
	return f, err
}
