package server

// DESIGN §3 steps 3 and 5, the limits: per-IP, then per-key and
// per-organization (429, or 503 when the limit store fails), taken in one
// limiter call around step 4 (shortcut, lookUpThenLimit, limitKnownKey).

import (
	"net/http"
	"strconv"
	"time"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/gin-gonic/gin"
)

// The limits run (serve, serve.go) before anything that queues (admit), so
// that a stalled limit store costs a request its deadline and never a place
// in the queue. A presented key that fails the format or checksum never
// reaches the database, and neither does a request from an IP whose bucket
// refused a moment ago (ipRefusals).
//
// The two orderings. This is the one place that explains why the steps run
// in one of two orders, and where their answers differ; serve chooses one,
// side by side with the other.
//
//   - Sequential (lookUpThenLimit, a key this process has not seen): the
//     key is looked up first (lookUp), then one limiter call takes the
//     per-IP bucket and, only when the key is valid, the per-key and
//     per-organization buckets: one database and one limiter round trip. The
//     answer is exactly the one of the steps in DESIGN §3's order: the per-IP
//     429 or a limiter 503 comes before the key's 401 (or a database 503),
//     which comes before the per-key and per-organization 429; the buckets
//     taken are those the steps one after the other would take.
//   - Known (limitKnownKey, a key whose identity, organization and scopes,
//     which never change, this process resolved before): one limiter call
//     takes all three buckets at once, and the key's state (revoked,
//     expired, issuer demoted or removed) is read after, in the database
//     round trip of its rows (readRows, checkKeyWithRows) or alone when the
//     request is refused before its rows (refuse, checkKeyAlone), through
//     its organization's key-state epoch (keys-admin/keys/pending.go); a
//     moved epoch reads the state again. Two round trips (limiter, database)
//     instead of three.
//
// The status difference: on the known path, a key that has become invalid
// since this process last saw it valid, on a request its key's or
// organization's bucket refuses, gets that 429 instead of 401 (and charges
// its buckets that once: the key is not yet pending when the 429 is
// written); its next request, the identity forgotten, takes the sequential
// path and gets 401. Every other answer is the same on both.

// shortcut answers, before either ordering, what needs no round trip: a
// per-IP refusal remembered (429), a limit store or a database whose
// breaker is open (503). It returns the request's IP bucket and time, and
// false when it has answered.
func (s *Server) shortcut(c *gin.Context, st *reqState) (ip string, asked time.Time, ok bool) {
	ip, asked = s.ipBucket(c), s.now()
	// 3 (remembered): this IP's bucket refused a moment ago and cannot have
	// room yet; answer as the store would, without the lookup or the store.
	if r, ok := s.refusals.get(ip, asked); ok {
		s.metrics.LimiterDecision(r.Limit.Name, false)
		st.limits[0], st.nLimits = r, 1
		s.allowed(c, st, st.limits[:1])
		return ip, asked, false
	}
	// The limit store has been failing: answer 503 at once, without the
	// lookup or the store, except for one probe now and then.
	// (A Redis Cluster limiter breaks per master itself: limiternodes.go.)
	if s.partial == nil && !s.breaker.allow(asked) {
		s.handleError(c, errLimiterDown)
		return ip, asked, false
	}
	// Likewise the database.
	if !s.dbBreaker.allow(asked) {
		s.handleError(c, errDatabaseDown)
		return ip, asked, false
	}
	return ip, asked, true
}

// lookUpThenLimit is the sequential ordering of steps 3 to 5, for a key
// bearer did not find pending (presented; "" for none): see above. It
// returns false when it has answered.
func (s *Server) lookUpThenLimit(c *gin.Context, st *reqState, ip string, asked time.Time, presented string) bool {
	p, authErr := s.lookUp(c, presented)
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
		return false
	}
	// 4. the key (401, or 503 when the database failed: auth.go).
	if !s.authenticated(c, st, p, authErr) {
		return false
	}
	// 5. per-key and per-organization.
	st.nLimits = 3
	return s.allowed(c, st, st.limits[1:3])
}

// limitKnownKey is the known ordering of steps 3 to 5, for a key bearer
// found pending (pd): see above. The key becomes the request's pending key
// only once its limits allow it. It returns false when it has answered.
func (s *Server) limitKnownKey(c *gin.Context, st *reqState, ip string, asked time.Time, pd *keys.Pending) bool {
	checks := [3]ratelimit.Check{
		{Limit: s.ipLimit, Key: "ip:" + ip, Gate: true},
		// One group, as in lookUpThenLimit.
		{Limit: s.keyLimit, Key: "key:" + pd.KeyID, Group: "org:" + pd.OrganizationID},
		{Limit: s.orgLimit, Key: "org:" + pd.OrganizationID, Group: "org:" + pd.OrganizationID},
	}
	if !s.takeLimits(c, st, checks[:], ip, asked) {
		return false
	}
	st.nLimits = 3
	if !s.allowed(c, st, st.limits[1:3]) {
		return false
	}
	st.pending = pd
	return true
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

// allowed sets the RateLimit header from the buckets checked so far and
// answers 429 naming the first of results that refused.
func (s *Server) allowed(c *gin.Context, st *reqState, results []ratelimit.Result) bool {
	s.rateLimitHeader(c, st)
	for _, r := range results {
		if !r.Allowed {
			c.Header("Retry-After", "60")
			s.refuse(c, http.StatusTooManyRequests, "rate limited by the "+bucketTitle(r.Limit.Name)+" limit ("+
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
