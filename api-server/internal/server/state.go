package server

// Request state: what the pipeline learns about a request (reqState), and
// the response headers set in place without an allocation each.

import (
	"context"
	"time"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/gin-gonic/gin"
)

// reqState is what the pipeline learns about a request.
type reqState struct {
	id        string
	start     time.Time
	principal *keys.Principal
	// pending is the key's lookup when its identity was known
	// (limitKnownKey) and its state is not checked yet: it is read in the
	// rows' round trip (readRows, checkKeyWithRows), or alone
	// (checkKeyAlone) when the request is refused before its rows.
	pending *keys.Pending
	scope   apikey.Scope // checked by authorize
	limits  [3]ratelimit.Result
	nLimits int
	redact  bool // the URL held a credential: never log its path or query
	// screened: screen passed the URL (no key-shaped value in the path or
	// the query in any reading, no percent-encoded path); guarded: guard
	// inspected the query and found no credential in it (or set redact).
	// The access log reads these verdicts instead of inspecting the URL
	// again: the query string is inspected once per request (screen, then
	// guard, which needs the names), and parsed once more only by step 7.
	screened, guarded bool
	// hdr holds the values of the request's own headers (setHeader), so
	// that they take no []string each.
	hdr     [3]string
	depFail bool // refused because a dependency failed: counted, not logged per request
	// admitted: the request holds a place in the admission gate (admit,
	// leave).
	admitted bool
}

const stateKey = "svc.state"

func state(c *gin.Context) *reqState {
	if v, ok := c.Get(stateKey); ok {
		return v.(*reqState)
	}
	st := &reqState{start: time.Now()}
	c.Set(stateKey, st)
	return st
}

// The values of the headers every response carries, set in place
// (canonical keys, no []string per response): a header's value slice is
// shared by all responses, so it is only ever replaced, never written to;
// its capacity is its length, so that Header.Add copies it.
var (
	hdrNoStore = fixedHeader("no-store")
	hdrNosniff = fixedHeader("nosniff")
	hdrHSTS    = fixedHeader("max-age=31536000; includeSubDomains")
	hdrJSON    = fixedHeader(jsonContentType)
)

func fixedHeader(v string) []string { return []string{v}[:1:1] }

// The request's own header values, by their place in reqState.hdr.
const (
	hdrRequestID = iota
	hdrRateLimit
	hdrKeyExpires
)

// setHeader sets the response header key (canonical) to v, held in
// st.hdr[i]: the header's value slice is st.hdr[i:i+1], capacity 1.
func (st *reqState) setHeader(c *gin.Context, i int, key, v string) {
	st.hdr[i] = v
	c.Writer.Header()[key] = st.hdr[i : i+1 : i+1]
}

// orgID is the organization of the request's key.
func (st *reqState) orgID() string {
	if st.principal != nil {
		return st.principal.OrganizationID
	}
	return st.pending.OrganizationID
}

// dbContext bounds one database call of a request by the database deadline.
func (s *Server) dbContext(c *gin.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.Request.Context(), s.dbWait)
}
