package server

// DESIGN §4c, conditional responses: every 200 of the lists and the summary
// carries a weak ETag made from the data versions of exactly what the page
// covers (the store's versions statement, read before the page and, on
// PostgreSQL, with the key-state epoch of the request's Prelude), the
// normalized query and the API version, never the key; the organization is
// hashed in, so that no organization's tag matches another's. A request
// whose If-None-Match holds the tag gets 304 without a body, after steps 2
// to 6 (a 304 is a request under the limits; a revoked key is refused by
// settle before the tag is compared), and the page's query is not run.

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/adsnap/svc/api-server/internal/query"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/gin-gonic/gin"
)

// conditionalStore is a Store that reads the versions of a page before it
// (*store.Store, *store.Routed): see store.Store.Conditional. Without it
// (a test's store) the pages carry no tag.
type conditionalStore interface {
	Conditional(ctx context.Context, orgID string, r store.Resource, p store.VersionParams, pre store.Prelude, cond bool,
		skip func(store.Meta, string) bool, read func(*store.Store) error) error
}

// tagVersion is the API version and the form of the tag: changing the
// envelope or the tag's material changes it, and every tag with it.
const tagVersion = "v1/1"

// hdrPrivateNoCache is the Cache-Control of a tagged 200 (and its 304).
var hdrPrivateNoCache = fixedHeader("private, no-cache")

// etag is the weak tag of the page of q of resource r of organization
// orgID whose store versions are material.
func etag(orgID string, r store.Resource, q *query.Params, material string) string {
	h := sha256.New()
	var n [8]byte
	field := func(s string) { // length-prefixed: no two field lists hash alike
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	num := func(v int) {
		binary.BigEndian.PutUint64(n[:], uint64(v))
		h.Write(n[:])
	}
	field(tagVersion)
	field(orgID)
	num(int(r))
	num(q.Limit)
	num(q.Offset)
	for _, s := range [...]string{q.AccountID, q.From, q.To, q.Level, q.GroupBy, material} {
		field(s)
	}
	var sum [sha256.Size]byte
	b := h.Sum(sum[:0])
	return `W/"` + hex.EncodeToString(b[:16]) + `"`
}

// noneMatch reports whether the request's If-None-Match lists tag (weak
// comparison, RFC 9110 §13.1.2) or is "*".
func noneMatch(r *http.Request, tag string) bool {
	want := strings.TrimPrefix(tag, "W/")
	for _, line := range r.Header.Values("If-None-Match") {
		for v := range strings.SplitSeq(line, ",") {
			v = strings.TrimSpace(v)
			if v == "*" || strings.TrimPrefix(v, "W/") == want {
				return true
			}
		}
	}
	return false
}

// readConditional reads a page with read, preceded by its versions when
// the store keeps them: the key's pending state is settled on them (settle:
// 401 or 403 answered here), then the tag is set on the response, and a
// matching If-None-Match is answered 304 without reading the page. A
// request without If-None-Match has its versions read with its page, in
// one round trip on PostgreSQL (store.Conditional); when it is answered
// so, the caller releases the page that was read. An
// account not the organization's is left to found (404). answered reports
// that the request has its answer; otherwise m and err are the page's (or
// the versions', when they failed), and the page was read with read.
func (s *Server) readConditional(c *gin.Context, ctx context.Context, r store.Resource, q *query.Params,
	vp store.VersionParams, read func(st Store, pre store.Prelude) (store.Meta, error)) (m store.Meta, answered bool, err error) {
	if s.cond == nil {
		m, err = read(s.store, s.prelude(c))
		return m, false, err
	}
	orgID := state(c).orgID()
	cond := c.Request.Header.Get("If-None-Match") != ""
	err = s.cond.Conditional(ctx, orgID, r, vp, s.prelude(c), cond, func(vm store.Meta, material string) bool {
		if cond {
			m = vm // else the page's, read before
		}
		if !s.settle(c, nil) {
			answered = true
			return true
		}
		if !vm.AccountFound {
			return true // found answers 404
		}
		tag := etag(orgID, r, q, material)
		h := c.Writer.Header()
		h["Etag"] = []string{tag}
		h["Cache-Control"] = hdrPrivateNoCache
		if noneMatch(c.Request, tag) {
			delete(h, "X-Content-Type-Options") // no body to sniff: a 304 stays small
			c.Status(http.StatusNotModified)
			c.Writer.WriteHeaderNow()
			c.Abort()
			answered = true
			return true
		}
		return false
	}, func(st *store.Store) error {
		var err error
		m, err = read(s.observed(st), nil) // the epoch was read with the versions
		return err
	})
	return m, answered, err
}

// observed is st as the handlers read it: instrumented when metrics or
// traces are on (instrument).
func (s *Server) observed(st *store.Store) Store {
	if s.metrics == nil && s.tracer == nil {
		return st
	}
	return observedStore{next: st, metrics: s.metrics, tracer: s.tracer}
}

// The page readers of the lists, by endpoint, on a given Store.
func accountsOf(st Store) pageReader[*store.AccountPage]   { return st.AccountsPage }
func campaignsOf(st Store) pageReader[*store.CampaignPage] { return st.CampaignsPage }
func insightsOf(st Store) pageReader[*store.InsightPage]   { return st.InsightsPage }
