package server

import (
	"errors"
	"net/http"
	"time"

	"github.com/adsnap/svc/api-server/internal/query"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/gin-gonic/gin"
)

// serve answers every API endpoint (endpoints.go): steps 2 to 9 of DESIGN
// §3, top to bottom; edge.go ran step 1 before it. Each step answers
// through refuse (errors.go) and returns false when it has answered.
func (s *Server) serve(ep *endpoint) gin.HandlerFunc {
	span := "query " + ep.name
	return func(c *gin.Context) {
		st := state(c)
		// Before every step: the primary read-only or in recovery → 503
		// (primaryready.go).
		if !s.refuseFenced(c, st) {
			return
		}
		// 2. Credentials in the query string, organization overrides, two
		// Authorization headers: 400 (guard.go).
		if !s.guard(c, st) {
			return
		}
		// 3 to 5. Per-IP limit (429), the key (401), per-key and
		// per-organization limits (429), in one of two orderings (limits.go
		// explains both, and the one answer in which they differ).
		ip, asked, ok := s.shortcut(c, st) // a refusal remembered, a breaker open
		if !ok {
			return
		}
		if key, pd := s.bearer(c); pd != nil {
			// A key this process resolved before: the three buckets in one
			// limiter call; its state is read with the rows (step 8).
			ok = s.limitKnownKey(c, st, ip, asked, pd)
		} else {
			// Any other key: looked up now, then one limiter call.
			ok = s.lookUpThenLimit(c, st, ip, asked, key)
		}
		if !ok {
			return
		}
		// Admission: at most MaxInFlight requests past here, in arrival
		// order (admit.go).
		if !s.admit(c, st) {
			return
		}
		defer s.leave(st)
		// 6. Issuer no longer an owner or admin, scope missing: 403 (auth.go).
		if !s.authorize(c, st, ep.scope) {
			return
		}
		// 7. The query: 400 with every problem (refuse checks a pending
		// key first: 401 and 403 come before 400).
		q, problems := query.Parse(c.Request.URL.RawQuery, ep.params, s.now())
		if len(problems) > 0 {
			s.refuse(c, http.StatusBadRequest, problems)
			return
		}
		// 8. The rows, given only once the key is checked; accountId not in
		// the key's organization: 404; the tag in If-None-Match: 304 without
		// reading the rows (conditional.go).
		m, rows, ok := s.readRows(c, st, ep, span, &q)
		if !ok {
			return
		}
		// 9. 200 (with the tag, set by readRows) in the envelope: the
		// endpoint's own, else the offset-paged one.
		if ep.envelope != nil {
			ep.envelope(s, c, &q, m, rows)
			return
		}
		s.respond(c, &q, m, rows, ep.capNote)
	}
}

// readRows is the only source of an endpoint's rows: it reads them with
// ep.read (and a tagged endpoint's data versions, readPage) and gives them
// only once the request's key is checked; a matching If-None-Match is
// answered 304 here, once the key is checked, without the rows. A pending
// key (the known ordering) is read in the rows' own statement on
// PostgreSQL and checked here (checkKeyWithRows, auth.go): 401 or 403 for a
// key no longer valid, and the rows are released unsent. It then gives the
// request's place in the admission gate back (leave), and answers a failed
// read (503, 500) or an account not in the organization (404). It returns
// false when it has answered. The read has a span named span and counts
// in the metric of failed database calls (readDone).
func (s *Server) readRows(c *gin.Context, st *reqState, ep *endpoint, span string, q *query.Params) (store.Meta, rowsPage, bool) {
	ctx, cancel := s.dbContext(c)
	ctx, sp := child(ctx, s.tracer, span)
	pr, err := s.readPage(ctx, c, st, ep, q) // conditional.go
	m, rows := pr.m, pr.rows
	s.readDone(sp, ep.name, err)
	cancel()
	keyOK := s.checkKeyWithRows(c, st, err) // admitted still: it may read the key's state alone (a moved epoch)
	s.leave(st)
	s.noteDatabase(c.Request.Context(), err)
	switch {
	case !keyOK:
	case err != nil:
		s.handleError(c, err)
	case !m.AccountFound:
		s.handleError(c, errAccountNotFound)
	case pr.notModified:
		notModified(c, pr.tag) // 304: the client's copy is current
	default:
		if pr.tag != "" {
			setTag(c, pr.tag)
		}
		return m, rows, true
	}
	if rows != nil {
		rows.Release()
	}
	return m, nil, false
}

// rowsPage is a page of rows as an endpoint's read returns it: a Store's
// page, or the summary's groups (summaryPage).
type rowsPage interface {
	Len() int
	// AppendJSON appends the first n rows to b as a JSON array; false when
	// a value has no JSON form.
	AppendJSON(b []byte, n int) ([]byte, bool)
	Release()
}

// errEncode: a row has a value without a JSON form (a non-finite number, a
// time outside years 0–9999), which encoding/json refuses too.
var errEncode = errors.New("encode page: a value has no JSON form")

// respond writes the envelope of a page read with limit+1 rows, then
// releases the page. capNote is added to meta.note when the page stops at
// the offset limit while rows remain.
func (s *Server) respond(c *gin.Context, q *query.Params, m store.Meta, rows rowsPage, capNote string) {
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
		note += n.Note() // a page may add to meta.note (the summary's ranking)
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
