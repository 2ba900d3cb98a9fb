package server

// DESIGN §3 step 2, the guard: what no path may receive (screen) and, on the
// API, credentials in the query string, organization overrides and two
// Authorization headers (guard), all 400 (431 for oversized headers).

import (
	"fmt"
	"net/http"

	"github.com/adsnap/svc/api-server/internal/query"
	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/gin-gonic/gin"
)

// screen refuses, on every path, what no endpoint may see: headers over
// MaxHeaderBytes (431), a key-shaped value anywhere in the URL however
// encoded (400, never logged), and a percent-encoded path (400:
// "/api/v1/developer/%61ccounts" and "%2F" would otherwise reach an endpoint
// under a name the guard and the log did not see).
func (s *Server) screen(c *gin.Context) {
	if headerBytes(c.Request) > MaxHeaderBytes {
		s.refuse(c, http.StatusRequestHeaderFieldsTooLarge, fmt.Sprintf("the request's headers exceed %d bytes", MaxHeaderBytes))
		return
	}
	uri := c.Request.RequestURI
	if uri == "" { // a request made in process, not read from a client
		uri = c.Request.URL.RequestURI()
	}
	switch query.ScreenURL(uri) {
	case query.CredentialInURL:
		state(c).redact = true
		s.chargeIP(c)
		s.refuse(c, http.StatusBadRequest, []string{
			"credentials must not be sent in the URL (path or query string); send the key only in the Authorization header (Bearer scheme)"})
		return
	case query.EncodedPath:
		s.chargeIP(c)
		s.refuse(c, http.StatusBadRequest, []string{"percent-encoded characters are not accepted in the path"})
		return
	}
	state(c).screened = true
	c.Next()
}

// guard is step 2: credentials in the query string and attempts to choose
// the organization are refused before anything else runs. It returns false
// when it has answered.
//
// Requests it refuses still count against their IP's bucket (chargeIP).
func (s *Server) guard(c *gin.Context, st *reqState) bool {
	msg := ""
	st.guarded = true
	switch r, header := query.GuardAPI(c.Request.URL.RawQuery, c.Request.Header); r {
	case query.CredentialInQuery:
		st.redact = true
		msg = "credentials must not be sent in the query string; send the key only in the Authorization header (Bearer scheme)"
	case query.OrgOverride:
		msg = "the organization is taken from the API key and cannot be chosen in the query string"
	case query.OrgHeaderGiven:
		msg = "the organization is taken from the API key and cannot be chosen with a header (" + header + ")"
	case query.AmbiguousAuthorization:
		msg = "send one Authorization header"
	}
	if msg != "" {
		s.chargeIP(c)
		s.refuse(c, http.StatusBadRequest, []string{msg})
		return false
	}
	return true
}

// chargeIP takes one request from the per-IP bucket for a request refused
// before authentication (400, 404, 405), so that a flood of bad requests
// counts like any other. Its own answer stands whatever the bucket says; a
// refusing bucket is remembered (ipRefusals), so the IP's next requests get
// 429 without a store round trip. While the store fails (a failure in the
// last second) nothing is charged: nothing is being served.
func (s *Server) chargeIP(c *gin.Context) {
	ip, now := s.ipBucket(c), s.now()
	if _, refused := s.refusals.get(ip, now); refused || s.failures.recent("rate limit store unavailable", now) {
		return
	}
	var res [1]ratelimit.Result
	if err := s.limiter.Allow(c.Request.Context(), []ratelimit.Check{{Limit: s.ipLimit, Key: "ip:" + ip, Gate: true}}, res[:]); err != nil {
		s.failures.note(c.Request.Context(), s.log, "rate limit store unavailable", err, now)
		return
	}
	if !res[0].Allowed {
		s.refusals.put(ip, res[0], now)
	}
}
