package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/adsnap/svc/api-server/internal/accesslog"
	"github.com/adsnap/svc/api-server/internal/query"
	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/gin-gonic/gin"
)

// reqState is what the pipeline learns about a request.
type reqState struct {
	id        string
	start     time.Time
	principal *keys.Principal
	// pending is the key's lookup when its identity was known (protect):
	// it is read in the page's round trip (settle), or alone (confirm)
	// when the request is refused before its page.
	pending *keys.Pending
	scope   apikey.Scope // checked by authorize
	limits  [3]ratelimit.Result
	nLimits int
	redact  bool // the URL held a credential: never log its path or query
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

// begin gives the request its id.
func (s *Server) begin(c *gin.Context) {
	st := &reqState{start: time.Now()}
	// A client's id is echoed and logged only when short, plain and not
	// shaped like a key; otherwise the request gets an id of its own.
	if id := c.GetHeader("X-Request-Id"); query.AcceptRequestID(id) {
		st.id = id
	} else {
		var b [8]byte
		_, _ = rand.Read(b[:])
		st.id = hex.EncodeToString(b[:])
	}
	c.Set(stateKey, st)
	st.setHeader(c, hdrRequestID, "X-Request-Id", st.id)
	// GET requests carry no body; bound whatever is sent.
	if c.Request.Body != nil {
		c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, 4<<10)
	}
	c.Next()
}

// screen refuses, on every path, what no endpoint may see: headers over
// MaxHeaderBytes (431), a key-shaped value anywhere in the URL however
// encoded (400, never logged), and a percent-encoded path (400:
// "/api/v1/developer/%61ccounts" and "%2F" would otherwise reach an endpoint
// under a name the guard and the log did not see).
func (s *Server) screen(c *gin.Context) {
	if headerBytes(c.Request) > MaxHeaderBytes {
		s.fail(c, http.StatusRequestHeaderFieldsTooLarge, fmt.Sprintf("the request's headers exceed %d bytes", MaxHeaderBytes))
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
		s.fail(c, http.StatusBadRequest, []string{
			"credentials must not be sent in the URL (path or query string); send the key only in the Authorization header (Bearer scheme)"})
		return
	case query.EncodedPath:
		s.chargeIP(c)
		s.fail(c, http.StatusBadRequest, []string{"percent-encoded characters are not accepted in the path"})
		return
	}
	c.Next()
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

// headerBytes is about what the request's header block weighs on the wire.
func headerBytes(r *http.Request) int {
	n := len(r.Method) + len(r.RequestURI) + len(r.Host) + 16
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}

func (s *Server) headers(c *gin.Context) {
	h := c.Writer.Header()
	h["Cache-Control"] = hdrNoStore
	h["X-Content-Type-Options"] = hdrNosniff
	if s.hsts {
		h["Strict-Transport-Security"] = hdrHSTS
	}
	if strings.HasPrefix(c.Request.URL.Path, "/api/") {
		h["Ratelimit-Policy"] = s.policyHdr
	}
	c.Next()
}

func (s *Server) recover(c *gin.Context) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.ErrorContext(c.Request.Context(), "panic", "request_id", state(c).id, "panic", fmt.Sprint(v))
			if !c.Writer.Written() {
				s.fail(c, http.StatusInternalServerError, "internal error")
			}
			c.Abort()
		}
	}()
	c.Next()
}

// accessLog writes one line per request. It never logs a header, and logs
// the query string only when it held no credential.
func (s *Server) accessLog(c *gin.Context) {
	c.Next()
	st := state(c)
	if st.depFail {
		return // counted in the failure's line, once a second (onceASecond)
	}
	status := c.Writer.Status()
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	if !s.log.Enabled(c.Request.Context(), level) {
		return
	}
	l := accesslog.Line{RequestID: st.id, Method: c.Request.Method, Path: c.Request.URL.Path, Status: status,
		LatencyMS: float64(time.Since(st.start).Microseconds()) / 1000, Bytes: c.Writer.Size(), ClientIP: c.ClientIP()}
	if st.redact || query.URLHoldsKey(l.Path) {
		l.Path = "[redacted: the URL held a key]"
	}
	if raw := c.Request.URL.RawQuery; raw != "" {
		if st.redact || query.Inspect(raw) == query.CredentialInQuery || query.URLHoldsKey(raw) {
			l.QueryRedacted = true
		} else {
			l.Query = raw
		}
	}
	if p := st.principal; p != nil {
		l.KeyID, l.OrgID = p.KeyID, p.OrganizationID
	}
	if s.accessOut != nil && level == slog.LevelInfo {
		s.writeAccessLine(&l, time.Now())
		return
	}
	s.log.LogAttrs(c.Request.Context(), level, "request", l.Attrs()...)
}

// guard is step 2: credentials in the query string and attempts to choose
// the organization are refused before anything else runs.
//
// Requests it refuses still count against their IP's bucket (chargeIP).
func (s *Server) guard(c *gin.Context) {
	msg := ""
	switch r, header := query.GuardAPI(c.Request.URL.RawQuery, c.Request.Header); r {
	case query.CredentialInQuery:
		state(c).redact = true
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
		s.fail(c, http.StatusBadRequest, []string{msg})
		return
	}
	c.Next()
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

// protect runs steps 3 to 5 with one database and one rate-limit round
// trip, before anything that queues (admit), so that a stalled limit store
// costs a request its deadline and never a place in the queue: the key is looked up first, then a single limiter call takes the
// per-IP bucket and, only when the IP is allowed and the key valid, the
// per-key and per-organization buckets. The answer is the one the steps give
// in their order: the per-IP refusal (429) or a limiter failure (503) comes
// before the key's 401 (or a database 503), which comes before the per-key
// and per-organization refusals; the buckets taken are exactly those the
// steps one after the other would take. A presented key that fails the
// format or checksum never reaches the database, and neither does a request
// from an IP whose bucket refused a moment ago (ipRefusals).
func (s *Server) protect(c *gin.Context) {
	st := state(c)
	ctx := c.Request.Context()
	ip, asked := s.ipBucket(c), s.now()
	// 3 (remembered): this IP's bucket refused a moment ago and cannot have
	// room yet; answer as the store would, without the lookup or the store.
	if r, ok := s.refusals.get(ip, asked); ok {
		s.metrics.LimiterDecision(r.Limit.Name, false)
		st.limits[0], st.nLimits = r, 1
		s.allowed(c, st, st.limits[:1])
		return
	}
	// The limit store has been failing: answer 503 at once, without the
	// lookup or the store, except for one probe now and then.
	// (A Redis Cluster limiter breaks per master itself: limiternodes.go.)
	if s.partial == nil && !s.breaker.allow(asked) {
		s.handleError(c, errLimiterDown)
		return
	}
	// Likewise the database.
	if !s.dbBreaker.allow(asked) {
		s.handleError(c, errDatabaseDown)
		return
	}
	var (
		p       *keys.Principal
		authErr = keys.ErrUnauthenticated
	)
	scheme, presented, ok := strings.Cut(c.GetHeader("Authorization"), " ")
	if ok && strings.EqualFold(scheme, "Bearer") {
		presented = strings.TrimSpace(presented)
		if s.known != nil {
			if pd, ok := s.known.Known(presented); ok {
				s.protectKnown(c, st, ip, asked, pd)
				return
			}
		}
		lctx, cancel := context.WithTimeout(ctx, s.dbWait)
		p, authErr = s.keys.Lookup(lctx, presented)
		cancel()
		s.noteDatabase(ctx, authErr)
	}
	var checksBuf [3]ratelimit.Check
	checks := append(checksBuf[:0], ratelimit.Check{Limit: s.ipLimit, Key: "ip:" + ip, Gate: true})
	if authErr == nil {
		checks = append(checks,
			// One group (one Cluster slot): a key's bucket and its
			// organization's are charged together, all or nothing, even on
			// a Redis Cluster; the IP's is a group of its own.
			ratelimit.Check{Limit: s.keyLimit, Key: "key:" + p.KeyID, Group: "org:" + p.OrganizationID},
			ratelimit.Check{Limit: s.orgLimit, Key: "org:" + p.OrganizationID, Group: "org:" + p.OrganizationID})
	}
	// 3. per-IP.
	if !s.takeLimits(c, st, checks, ip, asked) {
		return
	}
	// 4. the key.
	if authErr != nil {
		s.handleError(c, authErr)
		return
	}
	st.principal = p
	st.setHeader(c, hdrKeyExpires, KeyExpiresHeader, p.ExpiresAt.UTC().Format(time.RFC3339))
	// 5. per-key and per-organization.
	st.nLimits = 3
	if !s.allowed(c, st, st.limits[1:3]) {
		return
	}
	c.Next()
}

// protectKnown is protect for a key whose identity (id, organization,
// scopes: what never changes) this process resolved before: one limiter
// call takes the per-IP, per-key and per-organization buckets at once, and
// the key's state (revoked, expired, issuer demoted or removed) is checked
// in the database after, in the round trip of the page (settle) or alone
// when the request is refused before it (confirm): its organization's
// key-state epoch, which changes with anything the state depends on
// (keys-admin/keys/pending.go); a moved epoch reads the state again. So a request makes two round trips
// (limiter, database), not three. The answers are those of the steps in
// order but one: a key that has become invalid since this process last
// saw it valid, on a request that its key's or organization's bucket
// refuses, gets that 429, not 401 (and charges its buckets that once); its
// next request, the identity forgotten, takes the sequential path.
func (s *Server) protectKnown(c *gin.Context, st *reqState, ip string, asked time.Time, pd *keys.Pending) {
	checks := [3]ratelimit.Check{
		{Limit: s.ipLimit, Key: "ip:" + ip, Gate: true},
		// One group, as in protect.
		{Limit: s.keyLimit, Key: "key:" + pd.KeyID, Group: "org:" + pd.OrganizationID},
		{Limit: s.orgLimit, Key: "org:" + pd.OrganizationID, Group: "org:" + pd.OrganizationID},
	}
	if !s.takeLimits(c, st, checks[:], ip, asked) {
		return
	}
	st.nLimits = 3
	if !s.allowed(c, st, st.limits[1:3]) {
		return
	}
	st.pending = pd
	c.Next()
}

// takeLimits makes the request's one limiter call (checks, the per-IP
// bucket first, results into st.limits) and answers what step 3 decides: a
// limit store failure (503; the breaker counts it) or the per-IP bucket's
// refusal (429, remembered in ipRefusals). It returns false when it has
// answered.
func (s *Server) takeLimits(c *gin.Context, st *reqState, checks []ratelimit.Check, ip string, asked time.Time) bool {
	ctx := c.Request.Context()
	if err := s.limiter.Allow(ctx, checks, st.limits[:len(checks)]); err != nil {
		if !clientGone(ctx) && s.partial == nil { // a partial limiter breaks per node
			s.breaker.failed(s.now())
		}
		s.handleError(c, err)
		return false
	}
	s.breaker.succeeded()
	st.nLimits = 1
	if !s.allowed(c, st, st.limits[:1]) {
		s.refusals.put(ip, st.limits[0], asked)
		return false
	}
	return true
}

// prelude is the request's pending key lookup for the store, or nil.
func (s *Server) prelude(c *gin.Context) store.Prelude {
	if pd := state(c).pending; pd != nil {
		return pd
	}
	return nil
}

// settle reads the pending key lookup that went with the page (pageErr is
// the page's; when it failed, found answers it): 401 for a key no longer
// valid, 403 for an issuer no longer an admin. When the page's statement
// read a key-state epoch other than the one this process remembers the
// key's state with (the key or its organization's membership changed
// since), the state is read again, alone, before the answer. It returns
// false when it has answered.
func (s *Server) settle(c *gin.Context, pageErr error) bool {
	st := state(c)
	pd := st.pending
	if pd == nil || pageErr != nil {
		return true
	}
	if pd.Stale() {
		return s.confirm(c)
	}
	st.pending = nil
	p, err := pd.Principal()
	return s.settled(c, st, p, err)
}

// confirm reads a pending key lookup on its own, for a request refused
// before its page (a missing scope, a bad query), so that the answer is
// the one the steps give in order: 401, then 403, then 400. It returns
// false when it has answered.
func (s *Server) confirm(c *gin.Context) bool {
	st := state(c)
	pd := st.pending
	if pd == nil {
		return true
	}
	st.pending = nil
	ctx, cancel := s.dbContext(c)
	p, err := pd.Resolve(ctx)
	cancel()
	return s.settled(c, st, p, err)
}

func (s *Server) settled(c *gin.Context, st *reqState, p *keys.Principal, err error) bool {
	s.noteDatabase(c.Request.Context(), err)
	if s.metrics != nil {
		keyLookupMetric(s.metrics, err)
	}
	if err != nil {
		s.handleError(c, err)
		return false
	}
	st.principal = p
	st.setHeader(c, hdrKeyExpires, KeyExpiresHeader, p.ExpiresAt.UTC().Format(time.RFC3339))
	if err := p.Authorize(st.scope); err != nil {
		s.handleError(c, err)
		return false
	}
	return true
}

// orgID is the organization of the request's key.
func (st *reqState) orgID() string {
	if st.principal != nil {
		return st.principal.OrganizationID
	}
	return st.pending.OrganizationID
}

// allowed sets the RateLimit header from the buckets checked so far and
// answers 429 naming the first of results that refused.
func (s *Server) allowed(c *gin.Context, st *reqState, results []ratelimit.Result) bool {
	s.rateLimitHeader(c, st)
	for _, r := range results {
		if !r.Allowed {
			c.Header("Retry-After", "60")
			s.fail(c, http.StatusTooManyRequests, "rate limited by the "+bucketTitle(r.Limit.Name)+" limit ("+
				strconv.Itoa(r.Limit.Rate)+" requests per minute); wait 60 seconds before retrying")
			return false
		}
	}
	return true
}

func bucketTitle(name string) string {
	switch name {
	case "key":
		return "per-key"
	case "org":
		return "per-organization"
	}
	return "per-IP"
}

// rateLimitHeader sets RateLimit to every bucket checked so far, the
// tightest first (DESIGN §3 names the tightest; the others follow so that
// clients see the remaining quota of each bucket).
func (s *Server) rateLimitHeader(c *gin.Context, st *reqState) {
	checked := st.limits[:st.nLimits]
	if len(checked) == 0 {
		return
	}
	tight := 0
	for i := range checked {
		if checked[i].Remaining < checked[tight].Remaining {
			tight = i
		}
	}
	item := func(r *ratelimit.Result) string {
		secs := int((r.ResetAfter + time.Second - 1) / time.Second)
		return `"` + r.Limit.Name + `";r=` + strconv.Itoa(r.Remaining) + ";t=" + strconv.Itoa(secs)
	}
	v := item(&checked[tight])
	for _, i := range [...]int{1, 2, 0} { // the others in the policy's order: key, org, ip
		if i < len(checked) && i != tight && checked[i].Limit.Name != "" {
			v += ", " + item(&checked[i])
		}
	}
	st.setHeader(c, hdrRateLimit, "Ratelimit", v)
}

// authorize is step 6. For a pending key (protectKnown) the scope is
// checked here and the issuer with the page (settle); a missing scope
// reads the key's state first (confirm), for 401 before 403.
func (s *Server) authorize(scope apikey.Scope) gin.HandlerFunc {
	return func(c *gin.Context) {
		st := state(c)
		st.scope = scope
		if st.pending != nil {
			if st.pending.Scopes.Has(scope) || s.confirm(c) {
				c.Next()
			}
			return
		}
		if err := st.principal.Authorize(scope); err != nil {
			s.handleError(c, err)
			return
		}
		c.Next()
	}
}

// admit lets at most MaxInFlight requests through at once, in the order
// they arrived, each until its page is read (leave). Each admitted request
// holds at most one database connection at a time (key lookup, then page),
// so with MaxInFlight equal to the pool's
// size no request waits inside database/sql's pool, which hands a freed
// connection to a random waiter: under load that random order, not the
// work, made the slowest requests (p99 about 2.4× the median in the
// benchmark). Waiting here costs a goroutine, no connection. It comes after
// the limiter, so that nothing waits here behind a stalled limit store, and a
// request waits at most the database deadline (then 503 with Retry-After: a
// stalled database must not make the queue grow without end). A client that
// leaves while waiting is logged as 499 at info.
func (s *Server) admit(c *gin.Context) {
	if s.gate == nil {
		return
	}
	var t0 time.Time
	if s.metrics != nil {
		t0 = time.Now()
		s.metrics.Queued()
	}
	var err error
	// A free place with nobody waiting (TryAcquire keeps the arrival
	// order: it fails when anyone waits) costs no context and no timer.
	if !s.gate.TryAcquire(1) {
		ctx, cancel := context.WithTimeout(c.Request.Context(), s.dbWait)
		err = s.gate.Acquire(ctx, 1)
		cancel()
	}
	if s.metrics != nil {
		s.admitWait(t0, err)
	}
	if err != nil {
		if clientGone(c.Request.Context()) {
			c.AbortWithStatus(statusClientClosed)
			return
		}
		state(c).depFail = true
		s.failures.note(c.Request.Context(), s.log, "server busy: no place freed within the database deadline", err, s.now())
		s.fail(c, http.StatusServiceUnavailable, "the server is busy; try again in a second")
		return
	}
	st := state(c)
	st.admitted = true
	defer s.leave(st)
	c.Next()
}

// leave gives back the request's place in the admission gate, once: the
// handler leaves as soon as its page is read and its key settled (the page
// is in memory, its connection back in the pool, and the key's state read
// again if its epoch moved), so that encoding the page and writing it to a
// client, however slow that client reads, hold no place; admit leaves for
// a request that ended before.
func (s *Server) leave(st *reqState) {
	if st.admitted {
		st.admitted = false
		s.gate.Release(1)
	}
}

// noteDatabase tells the database breaker how a call ended: a failure
// of the database (store.Unavailable, not caused by the client leaving)
// counts; an answer, even "no such key" or an error, does not.
func (s *Server) noteDatabase(ctx context.Context, err error) {
	switch {
	case err == nil, !store.Unavailable(err): // the database answered
		s.dbBreaker.succeeded()
	case !clientGone(ctx):
		s.dbBreaker.failed(s.now())
	}
}

// dbContext bounds one database call of a request by the database deadline.
func (s *Server) dbContext(c *gin.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.Request.Context(), s.dbWait)
}
