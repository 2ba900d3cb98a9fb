package server

import (
	"context"
	"encoding/json"
	"fmt"
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
// Tokens and cursors are synctoken.go's. It is a value of the endpoint
// table (endpoints.go): serve runs its steps, readChanges is its read
// (through readRows' key check) and respondChanges its envelope.

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

// feedRefusal is a token or cursor the feed cannot use: a 400, or a 410
// for a pruned token; handleError answers it through refuse (which checks
// a pending key first).
type feedRefusal struct {
	status int
	msg    string
}

func (r *feedRefusal) Error() string { return r.msg }

// changesPage is a page of the feed as readChanges returns it: the store's
// page with what respondChanges needs for the cursor or the token.
type changesPage struct {
	*store.ChangePage
	m   store.ChangesMeta
	cur syncCursor
	key []byte
	org string
}

// readChanges is the read of GET /insights/changes (endpoints.go): it
// opens the cursor or the sync token with the token key, then reads
// limit+1 changes of the window.
func readChanges(ctx context.Context, s *Server, st Store, orgID string, q query.Params, pre store.Prelude) (store.Meta, rowsPage, error) {
	key, err := s.tokens.get(ctx)
	if err != nil {
		return store.Meta{}, nil, fmt.Errorf("sync token key: %w", err)
	}
	cur := syncCursor{First: true}
	switch {
	case q.Cursor != "":
		if cur, err = decodeCursor(key, orgID, q.Cursor); err != nil {
			return store.Meta{}, nil, &feedRefusal{http.StatusBadRequest, msgBadCursor}
		}
	case q.Since != "":
		cur.First = false
		if cur.Lo, err = decodeToken(key, orgID, q.Since); err != nil {
			return store.Meta{}, nil, &feedRefusal{http.StatusBadRequest, msgBadSince}
		}
	}
	m, page, err := st.ChangesPage(ctx, orgID, cur.storeParams(q.Limit+1), pre)
	if err == nil && m.Gone {
		err = &feedRefusal{http.StatusGone, msgGone}
	}
	if err != nil {
		return m.Meta, nil, err
	}
	return m.Meta, &changesPage{ChangePage: page, m: m, cur: cur, key: key, org: orgID}, nil
}

// respondChanges is the feed's envelope (endpoint.envelope): it writes a
// page read with limit+1 changes, with a cursor to the next page when
// there is one, else the next sync's token.
func respondChanges(s *Server, c *gin.Context, q *query.Params, _ store.Meta, rows rowsPage) {
	defer rows.Release()
	p := rows.(*changesPage)
	page, m, cur, key, org, limit := p.ChangePage, p.m, p.cur, p.key, p.org, q.Limit
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
