package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/adsnap/svc/api-server/internal/query"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/gin-gonic/gin"
)

// GET /insights/changes (openapi.yaml, readInsightChanges; DESIGN §4b,
// issue 42): a first sync without since (every current row as an upsert),
// or the rows changed and removed since a sync token, paged by opaque
// cursors; the last page (nextCursor null) carries the next sync's token.
// Tokens and cursors are synctoken.go's. The request takes the pipeline of
// the lists (routes.go) and is charged as one request.

// ChangesStore is a Store that reads the changes feed (*store.Store,
// *store.Routed). A Store without it answers the feed with a 500.
type ChangesStore interface {
	ChangesPage(ctx context.Context, orgID string, p store.ChangesParams, pre store.Prelude) (store.ChangesMeta, *store.ChangePage, error)
}

// errNoChanges: the configured Store cannot read the feed (a bug of the set-up).
var errNoChanges = errors.New("the store does not implement ChangesPage")

// The answers of a token or cursor that cannot be used.
const (
	msgBadSince  = "since is not a sync token of this organization (it is opaque: pass the syncToken of a sync's last page as it was returned, or start a first sync without since)"
	msgBadCursor = "cursor is not a cursor of this organization (it is opaque: pass the nextCursor of the previous page as it was returned)"
	msgGone      = "the sync token is older than the change log's retention: start a first sync again, without since"
)

// changesMeta is the meta of a changes page (openapi.yaml, ChangesMeta).
type changesMeta struct {
	Source          string  `json:"source"`
	LiveMetaRequest bool    `json:"liveMetaRequest"`
	Limit           int     `json:"limit"`
	Returned        int     `json:"returned"`
	NextCursor      *string `json:"nextCursor"`
	SyncToken       *string `json:"syncToken"`
	GeneratedAt     string  `json:"generatedAt"`
	DataAsOf        string  `json:"dataAsOf"`
	Note            string  `json:"note"`
}

func (s *Server) insightChanges(c *gin.Context) {
	q, problems := query.ParseChanges(c.Request.URL.RawQuery)
	if len(problems) > 0 {
		if s.confirm(c) {
			s.fail(c, http.StatusBadRequest, problems)
		}
		return
	}
	ctx, cancel := s.dbContext(c)
	defer cancel()
	org := state(c).orgID()
	key, err := s.tokens.get(ctx)
	if err != nil {
		if s.confirm(c) {
			s.handleError(c, err)
		}
		return
	}
	cur, bad := syncCursor{First: true}, ""
	switch {
	case q.Cursor != "":
		if cur, err = decodeCursor(key, org, q.Cursor); err != nil {
			bad = msgBadCursor
		}
	case q.Since != "":
		cur.First = false
		if cur.Lo, err = decodeToken(key, org, q.Since); err != nil {
			bad = msgBadSince
		}
	}
	if bad != "" {
		if s.confirm(c) {
			s.fail(c, http.StatusBadRequest, bad)
		}
		return
	}
	var (
		m    store.ChangesMeta
		page *store.ChangePage
	)
	err = errNoChanges
	if cs, ok := s.store.(ChangesStore); ok {
		m, page, err = cs.ChangesPage(ctx, org, cur.storeParams(q.Limit+1), s.prelude(c))
	}
	settled := s.settle(c, err)
	s.leave(state(c))
	if !settled || !s.found(c, m.Meta, err) {
		return
	}
	if m.Gone {
		s.fail(c, http.StatusGone, msgGone)
		return
	}
	s.respondChanges(c, key, org, q.Limit, cur, m, page)
}

// respondChanges writes a page read with limit+1 changes: a cursor to the
// next page when there is one, else the next sync's token.
func (s *Server) respondChanges(c *gin.Context, key []byte, org string, limit int, cur syncCursor, m store.ChangesMeta, page *store.ChangePage) {
	n := page.Len()
	md := changesMeta{Source: "stored_snapshot", Limit: limit, Note: Note,
		GeneratedAt: s.now().UTC().Format(time.RFC3339)}
	asOf := m.DataAsOf
	if asOf.IsZero() {
		asOf = time.Unix(0, 0) // nothing imported for the organization yet
	}
	md.DataAsOf = asOf.UTC().Format(time.RFC3339)
	if n > limit {
		n = limit
		last := page.Changes[n-1]
		next := cur
		next.Hi = m.Hi
		if cur.First {
			next.AfterDate, next.AfterID = last.Row.Date, last.Row.ID
		} else {
			next.AfterTxID, next.AfterSeq = last.TxID, last.Seq
		}
		v := encodeCursor(key, org, next)
		md.NextCursor = &v
	} else {
		// A window never ends before it starts (a replica behind the token
		// never answers it: store.Routed).
		v := encodeToken(key, org, max(m.Hi, cur.Lo))
		md.SyncToken = &v
	}
	md.Returned = n
	b, ok := page.AppendJSON([]byte(`{"data":`), n)
	mj, err := json.Marshal(&md)
	if !ok || err != nil {
		s.handleError(c, errEncode)
		return
	}
	b = append(append(append(b, `,"meta":`...), mj...), '}')
	writeJSON(c, b)
}

// ChangesPage passes the feed on when the observed store has one.
func (o observedStore) ChangesPage(ctx context.Context, orgID string, p store.ChangesParams, pre store.Prelude) (store.ChangesMeta, *store.ChangePage, error) {
	cs, ok := o.next.(ChangesStore)
	if !ok {
		return store.ChangesMeta{}, nil, errNoChanges
	}
	ctx, sp := child(ctx, o.tracer, "query insight changes")
	m, page, err := cs.ChangesPage(ctx, orgID, p, pre)
	o.done(sp, "insight changes", err)
	return m, page, err
}
