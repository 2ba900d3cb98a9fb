package server

import (
	"context"
	"errors"
	"net/http"
	"time"

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

// page is what respond encodes: a page of rows from the store.
type rowsPage interface {
	Len() int
	AppendJSON(b []byte, n int) ([]byte, bool)
	Release()
}

// errEncode: a row has a value without a JSON form (a non-finite number, a
// time outside years 0–9999), which encoding/json refuses too.
var errEncode = errors.New("encode page: a value has no JSON form")

// respond writes the envelope of a page read with limit+1 rows, then
// releases the page. capNote is added to meta.note when the page stops at
// the offset limit while rows remain.
func respond(s *Server, c *gin.Context, q query.Params, m store.Meta, rows rowsPage, capNote string) {
	defer rows.Release()
	n := rows.Len()
	more := n > q.Limit
	if more {
		n = q.Limit
	}
	asOf := m.DataAsOf
	if asOf.IsZero() {
		asOf = time.Unix(0, 0) // nothing imported for the organization yet
	}
	var next *int
	note := Note
	if end := q.Offset + n; more && end <= query.MaxOffset {
		next = &end
	} else if more {
		note += capNote
	}
	if n, ok := rows.(interface{ Note() string }); ok {
		note += n.Note()
	}
	md := meta{
		Source: "stored_snapshot", LiveMetaRequest: false,
		Limit: q.Limit, Offset: q.Offset, NextOffset: next, Returned: n,
		GeneratedAt: s.now().UTC().Format(time.RFC3339),
		DataAsOf:    asOf.UTC().Format(time.RFC3339),
		Note:        note,
	}
	bp := bufPool.Get().(*[]byte)
	// SPEC §2: data is an array, also when it is empty.
	b, ok := rows.AppendJSON(append((*bp)[:0], `{"data":`...), n)
	b = appendMeta(append(b, `,"meta":`...), &md)
	b = append(b, '}')
	if ok {
		writeJSON(c, b)
	} else {
		s.handleError(c, errEncode)
	}
	if cap(b) <= 1<<20 {
		*bp = b[:0]
		bufPool.Put(bp)
	}
}

// pageReader reads one page of an endpoint's rows (a Store's *Page method).
type pageReader[P rowsPage] func(ctx context.Context, orgID string, p store.ListParams, pre store.Prelude) (store.Meta, P, error)

// list is the one list handler, for every endpoint: steps 7 to 9 of
// DESIGN §3 over the page type P that read returns. capNote is added to
// meta.note when the page stops at the offset limit while rows remain.
func list[P rowsPage](s *Server, ep query.Endpoint, read pageReader[P], capNote string) gin.HandlerFunc {
	return func(c *gin.Context) {
		q, ok := s.page(c, ep)
		if !ok {
			return
		}
		ctx, cancel := s.dbContext(c)
		defer cancel()
		st := state(c)
		m, rows, err := read(ctx, st.orgID(), listParams(q), s.prelude(c))
		settled := s.settle(c, err) // admitted still: it may read the key's state (a moved epoch)
		s.leave(st)
		if !settled || !s.found(c, m, err) {
			rows.Release()
			return
		}
		respond(s, c, q, m, rows, capNote)
	}
}
