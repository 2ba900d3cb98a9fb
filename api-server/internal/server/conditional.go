package server

// DESIGN §4c, conditional responses: every 200 of the lists and the summary
// carries a weak ETag made from the data versions of exactly what the page
// covers (the store's versions statement, read before the page and, on
// PostgreSQL, with the key-state epoch of the request's Prelude), the
// normalized query and the API version, never the key; the organization is
// hashed in, so that no organization's tag matches another's. A request
// whose If-None-Match holds the tag gets 304 without a body, after steps 2
// to 7 (a 304 is a request under the limits), and the page's query is not
// run. The versions are read through readRows (serve.go) like the rows: a
// key no longer valid gets 401 or 403, never 304.

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
		skip func(store.Meta, string) bool, read func(*store.Store, store.Prelude) (store.Meta, error)) error
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

// pageRead is a page as readPage gives it to readRows.
type pageRead struct {
	m    store.Meta
	rows rowsPage // nil when the page was not read
	// tag is the page's ETag ("" when the endpoint or the store has none);
	// notModified: the request's If-None-Match holds it, and the page was
	// not read (304 once the key is checked).
	tag         string
	notModified bool
}

// readPage reads the page of q for readRows, which checks the key before
// anything read here is answered. An endpoint without a tag, or a store
// without data versions (a test's), has its page read by ep.read alone,
// with the key state in the same statement. A tagged endpoint's versions
// are read through the store's Conditional with the key state (pre): on a
// request with If-None-Match, before and without the page when the tag
// matches (notModified) or the account is not the organization's (404);
// else with the page, in one round trip on PostgreSQL for a list.
func (s *Server) readPage(ctx context.Context, c *gin.Context, st *reqState, ep *endpoint, q *query.Params) (pageRead, error) {
	orgID := st.orgID()
	if !ep.tagged || s.cond == nil {
		m, rows, err := ep.read(ctx, s, s.store, orgID, *q, st.prelude())
		return pageRead{m: m, rows: rows}, err
	}
	var pr pageRead
	cond := c.Request.Header.Get("If-None-Match") != ""
	vp := store.VersionParams{Limit: q.Limit + 1, Offset: q.Offset, AccountID: q.AccountID, From: q.From, To: q.To}
	if o := q.Options; o != nil && o.CompareFrom != "" {
		// A compared summary covers both periods: the tag covers the days
		// from the earlier start to the later end (dates compare as text).
		vp.From, vp.To = min(vp.From, o.CompareFrom), max(vp.To, o.CompareTo)
	}
	err := s.cond.Conditional(ctx, orgID, ep.resource, vp, st.prelude(), cond, func(vm store.Meta, material string) bool {
		pr.tag, pr.notModified = "", false     // called again when a replica's read is retried
		if vm.AccountFound && material != "" { // "": the store could not tag this page
			pr.tag = etag(orgID, ep.resource, q, material)
		}
		if !cond {
			return false // the page is read (or was, with its versions)
		}
		if !vm.AccountFound || noneMatch(c.Request, pr.tag) {
			pr.m, pr.notModified = vm, vm.AccountFound
			return true
		}
		return false
	}, func(db *store.Store, pre store.Prelude) (store.Meta, error) {
		if pr.rows != nil { // a replica's read retried on the primary
			pr.rows.Release()
		}
		var err error
		// pre is nil when the epoch was read with the versions.
		pr.m, pr.rows, err = ep.read(ctx, s, db, orgID, *q, pre)
		return pr.m, err
	})
	return pr, err
}

// notModified answers 304 with the tag, without a body.
func notModified(c *gin.Context, tag string) {
	h := c.Writer.Header()
	h["Etag"] = []string{tag}
	h["Cache-Control"] = hdrPrivateNoCache
	delete(h, "X-Content-Type-Options") // no body to sniff: a 304 stays small
	c.Status(http.StatusNotModified)
	c.Writer.WriteHeaderNow()
	c.Abort()
}

// setTag tags a 200.
func setTag(c *gin.Context, tag string) {
	h := c.Writer.Header()
	h["Etag"] = []string{tag}
	h["Cache-Control"] = hdrPrivateNoCache
}
