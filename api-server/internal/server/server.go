// Package server is the read-only HTTP API: the gin router, the request
// pipeline of DESIGN §3 as an explicit middleware list, the three list
// handlers, health endpoints and the OpenAPI document.
package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/adsnap/svc/api-server/internal/query"
	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/telemetry"
	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/sync/semaphore"
)

// BasePath is the API root (SPEC §4).
const BasePath = "/api/v1/developer"

// KeyLookup resolves a presented key (keys-admin's *keys.Service).
type KeyLookup interface {
	Lookup(ctx context.Context, presented string) (*keys.Principal, error)
}

// Store reads snapshot rows (*store.Store).
type Store interface {
	// The *Page methods return the organization's snapshot meta (and whether
	// p.AccountID is one of its accounts) with a page of rows, in one round
	// trip on PostgreSQL.
	AccountsPage(ctx context.Context, orgID string, p store.ListParams) (store.Meta, []store.AccountRow, error)
	CampaignsPage(ctx context.Context, orgID string, p store.ListParams) (store.Meta, []store.CampaignRow, error)
	InsightsPage(ctx context.Context, orgID string, p store.ListParams, buf *store.InsightBuf) (store.Meta, []store.InsightRow, error)
	Ping(ctx context.Context) error
}

// replicaStatus is a Store with read replicas (*store.Routed): /readyz
// shows their state and lag.
type replicaStatus interface {
	Status() []store.ReplicaStatus
}

// Limits are the requests per minute of each bucket (SPEC §8 by default).
type Limits struct {
	KeyPerMinute int
	OrgPerMinute int
	IPPerMinute  int
}

// DefaultLimits are SPEC §8's.
var DefaultLimits = Limits{KeyPerMinute: 60, OrgPerMinute: 120, IPPerMinute: 180}

// Config is everything the server needs.
type Config struct {
	Keys    KeyLookup
	Store   Store
	Limiter ratelimit.Limiter
	Limits  Limits
	// TrustedProxies are the addresses or CIDRs whose X-Forwarded-For is
	// believed; none by default, so the client IP is the socket's.
	TrustedProxies []string
	// HSTS adds Strict-Transport-Security (serving TLS, or behind an https site URL).
	HSTS bool
	// OpenAPIJSON is served at BasePath/openapi.json.
	OpenAPIJSON []byte
	// DownloadsDir, when set, is served at /developers/.
	DownloadsDir string
	// DownloadsSiteURL is the site named in the install commands of the
	// /developers/ page; the address each request came to when empty.
	DownloadsSiteURL string
	Logger           *slog.Logger
	// Now is the clock (time.Now if nil).
	Now func() time.Time
	// MaxInFlight, when positive, is how many API requests are processed
	// at once past the limiter; the others wait in arrival order, at most
	// DatabaseDeadline. serve sets it to the database pool's size (see admit).
	MaxInFlight int
	// DatabaseDeadline bounds every database call of a request, and a
	// request's wait for one of MaxInFlight places (DefaultDatabaseDeadline if 0).
	DatabaseDeadline time.Duration
	// Metrics, when set, records the request metrics (issue #17); nil: off.
	Metrics *telemetry.Metrics
	// Tracer, when set, gives each request a span with children for the key
	// lookup, the limiter and the data query; nil: off.
	Tracer trace.Tracer
}

// DefaultDatabaseDeadline is Config.DatabaseDeadline's default: a stalled
// database costs a request at most this before its 503.
const DefaultDatabaseDeadline = time.Second

// MaxHeaderBytes is the most header bytes (request line included) a request
// may send: more gets 431 with the error body. The http.Server's own limit
// must be larger (serve sets 64 KiB), or net/http answers a text/plain 431
// itself.
const MaxHeaderBytes = 16 << 10

// Server holds the handlers' dependencies.
type Server struct {
	keys      KeyLookup
	store     Store
	limiter   ratelimit.Limiter
	keyLimit  ratelimit.Limit
	orgLimit  ratelimit.Limit
	ipLimit   ratelimit.Limit
	refusals  *ipRefusals
	gate      *semaphore.Weighted
	dbWait    time.Duration
	ready     readiness
	failures  onceASecond
	breaker   breaker // of the limit store
	dbBreaker breaker // of the database
	policy    string
	hsts      bool
	openapi   []byte
	downloads string
	// downloadsSite: see Config.DownloadsSiteURL.
	downloadsSite string
	log           *slog.Logger
	now           func() time.Time
	metrics       *telemetry.Metrics
	tracer        trace.Tracer
}

// New returns the API as an http.Handler.
func New(cfg Config) (http.Handler, error) {
	if cfg.Keys == nil || cfg.Store == nil || cfg.Limiter == nil {
		return nil, errors.New("server: Keys, Store and Limiter are required")
	}
	l := cfg.Limits
	if l == (Limits{}) {
		l = DefaultLimits
	}
	if l.KeyPerMinute <= 0 || l.OrgPerMinute <= 0 || l.IPPerMinute <= 0 {
		return nil, fmt.Errorf("server: every limit must be positive, got key %d, org %d, ip %d", l.KeyPerMinute, l.OrgPerMinute, l.IPPerMinute)
	}
	s := &Server{
		keys: cfg.Keys, store: cfg.Store, limiter: cfg.Limiter,
		keyLimit: ratelimit.PerMinute("key", l.KeyPerMinute),
		orgLimit: ratelimit.PerMinute("org", l.OrgPerMinute),
		ipLimit:  ratelimit.PerMinute("ip", l.IPPerMinute),
		refusals: newIPRefusals(),
		hsts:     cfg.HSTS, openapi: cfg.OpenAPIJSON, downloads: cfg.DownloadsDir,
		log: cfg.Logger, now: cfg.Now,
		metrics: cfg.Metrics, tracer: cfg.Tracer,
	}
	s.downloadsSite = cfg.DownloadsSiteURL
	s.instrument()
	if cfg.MaxInFlight > 0 {
		s.gate = semaphore.NewWeighted(int64(cfg.MaxInFlight))
	}
	s.dbWait = cfg.DatabaseDeadline
	if s.dbWait <= 0 {
		s.dbWait = DefaultDatabaseDeadline
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.policy = fmt.Sprintf(`"key";q=%d;w=60, "org";q=%d;w=60, "ip";q=%d;w=60`, l.KeyPerMinute, l.OrgPerMinute, l.IPPerMinute)

	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.HandleMethodNotAllowed = true
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	if err := r.SetTrustedProxies(cfg.TrustedProxies); err != nil {
		return nil, fmt.Errorf("trusted proxies: %w", err)
	}
	// Only X-Forwarded-For, and only from a trusted proxy (gin's default
	// also believes X-Real-IP); see README, "Behind a proxy".
	r.RemoteIPHeaders = []string{"X-Forwarded-For"}
	// 1. Request id, panic recovery, access log; headers on every response.
	// Then what no path may receive (screen).
	if s.metrics != nil || s.tracer != nil {
		// First, so that the span and the metrics cover the whole answer
		// (observe.go); not installed at all when both are off.
		r.Use(s.observe)
	}
	r.Use(s.begin, s.accessLog, s.recover, s.headers, s.screen)
	r.NoRoute(func(c *gin.Context) {
		s.chargeIP(c)
		s.fail(c, http.StatusNotFound, "no such endpoint; see "+BasePath+"/openapi.json")
	})
	r.NoMethod(func(c *gin.Context) {
		s.chargeIP(c)
		c.Header("Allow", "GET, HEAD")
		s.fail(c, http.StatusMethodNotAllowed, "method not allowed: this API is read-only and accepts GET and HEAD only")
	})

	// get registers h for GET and HEAD (RFC 9110 §9.3.2: HEAD wherever GET
	// works; net/http drops the body of a HEAD answer).
	get := func(g gin.IRoutes, path string, h ...gin.HandlerFunc) {
		g.GET(path, h...)
		g.HEAD(path, h...)
	}
	get(r, "/healthz", s.healthz)
	get(r, "/readyz", s.readyz)
	get(r, BasePath+"/openapi.json", s.openAPI)
	if s.downloads != "" {
		get(r, "/developers/", s.downloadsIndex)
		get(r, "/developers/:file", s.downloadFile)
	}

	api := r.Group(BasePath,
		s.guard,   // 2. credentials in the query, organization overrides, ambiguous headers → 400
		s.protect, // 3. per-IP limit → 429; 4. bearer key → 401; 5. per-key and per-organization limits → 429
		s.admit,   // (requests past the limiter wait here, in arrival order, for one of MaxInFlight places)
	)
	// 6. issuer and scope → 403; then 7–9 in the handler.
	get(api, "/accounts", s.authorize(apikey.ScopeAccountsRead), s.listAccounts)
	get(api, "/campaigns", s.authorize(apikey.ScopeCampaignsRead), s.listCampaigns)
	get(api, "/insights", s.authorize(apikey.ScopeInsightsRead), s.listInsights)
	return r, nil
}

// reqState is what the pipeline learns about a request.
type reqState struct {
	id        string
	start     time.Time
	principal *keys.Principal
	limits    [3]ratelimit.Result
	nLimits   int
	redact    bool // the URL held a credential: never log its path or query
	depFail   bool // refused because a dependency failed: counted, not logged per request
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
	c.Header("X-Request-Id", st.id)
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
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	if s.hsts {
		h.Set("Strict-Transport-Security", "max-age=31536000; includeSubDomains")
	}
	if strings.HasPrefix(c.Request.URL.Path, "/api/") {
		h.Set("RateLimit-Policy", s.policy)
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
	path := c.Request.URL.Path
	if st.redact || query.URLHoldsKey(path) {
		path = "[redacted: the URL held a key]"
	}
	attrs := make([]slog.Attr, 0, 12)
	attrs = append(attrs,
		slog.String("request_id", st.id),
		slog.String("method", c.Request.Method),
		slog.String("path", path),
		slog.Int("status", status),
		slog.Float64("latency_ms", float64(time.Since(st.start).Microseconds())/1000),
		slog.Int("bytes", c.Writer.Size()),
		slog.String("client_ip", c.ClientIP()),
	)
	if raw := c.Request.URL.RawQuery; raw != "" {
		if st.redact || query.Inspect(raw) == query.CredentialInQuery || query.URLHoldsKey(raw) {
			attrs = append(attrs, slog.Bool("query_redacted", true))
		} else {
			attrs = append(attrs, slog.String("query", raw))
		}
	}
	if p := st.principal; p != nil {
		attrs = append(attrs, slog.String("key_id", p.KeyID), slog.String("organization_id", p.OrganizationID))
	}
	s.log.LogAttrs(c.Request.Context(), level, "request", attrs...)
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
	ip, now := c.ClientIP(), s.now()
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
	ip, asked := c.ClientIP(), s.now()
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
	if !s.breaker.allow(asked) {
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
		lctx, cancel := context.WithTimeout(ctx, s.dbWait)
		p, authErr = s.keys.Lookup(lctx, strings.TrimSpace(presented))
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
	if err := s.limiter.Allow(ctx, checks, st.limits[:len(checks)]); err != nil {
		if !clientGone(ctx) {
			s.breaker.failed(s.now())
		}
		s.handleError(c, err)
		return
	}
	s.breaker.succeeded()
	// 3. per-IP.
	st.nLimits = 1
	if !s.allowed(c, st, st.limits[:1]) {
		s.refusals.put(ip, st.limits[0], asked)
		return
	}
	// 4. the key.
	if authErr != nil {
		s.handleError(c, authErr)
		return
	}
	st.principal = p
	c.Header(KeyExpiresHeader, p.ExpiresAt.UTC().Format(time.RFC3339))
	// 5. per-key and per-organization.
	st.nLimits = 3
	if !s.allowed(c, st, st.limits[1:3]) {
		return
	}
	c.Next()
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
	c.Header("RateLimit", v)
}

// authorize is step 6.
func (s *Server) authorize(scope apikey.Scope) gin.HandlerFunc {
	return func(c *gin.Context) {
		if err := state(c).principal.Authorize(scope); err != nil {
			s.handleError(c, err)
			return
		}
		c.Next()
	}
}

// errAccountNotFound: accountId names no account of the key's organization.
var errAccountNotFound = errors.New("account not found")

// errDatabase wraps a store failure.
var errDatabase = errors.New("database unavailable")

// handleError is the one place where errors become responses.
func (s *Server) handleError(c *gin.Context, err error) {
	if clientGone(c.Request.Context()) {
		// The client went away (or the server is stopping): whatever failed
		// failed because of that, not because a dependency did. Nobody reads
		// the answer; the access log says 499 at info.
		c.AbortWithStatus(statusClientClosed)
		return
	}
	switch {
	case errors.Is(err, keys.ErrUnauthenticated):
		c.Header("WWW-Authenticate", `Bearer realm="svc"`)
		s.fail(c, http.StatusUnauthorized, "missing, invalid, revoked or expired API key; send a valid key in the Authorization header (Bearer scheme)")
	case errors.Is(err, keys.ErrIssuerNotAdmin):
		s.fail(c, http.StatusForbidden, "the key's issuer is no longer an owner or administrator of the organization")
	case errors.Is(err, keys.ErrScopeMissing):
		s.fail(c, http.StatusForbidden, "the API key lacks the scope this endpoint requires ("+scopeOf(c.FullPath())+")")
	case errors.Is(err, errAccountNotFound):
		s.fail(c, http.StatusNotFound, "account not found in the key's organization")
	case errors.Is(err, ratelimit.ErrUnavailable):
		state(c).depFail = true
		s.failures.note(c.Request.Context(), s.log, "rate limit store unavailable", err, s.now())
		s.fail(c, http.StatusServiceUnavailable, "the protection service (rate limiting) is unavailable; reads fail closed, try again later")
	default:
		state(c).depFail = true
		s.failures.note(c.Request.Context(), s.log, "database unavailable", err, s.now())
		s.fail(c, http.StatusServiceUnavailable, "the database is unavailable; reads fail closed, try again later")
	}
}

// clientGone reports whether the request's own context has ended, or is
// about to: a network deadline taken from it can fire a moment before the
// context's timer does.
func clientGone(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	dl, ok := ctx.Deadline()
	return ok && !time.Now().Before(dl)
}

// statusClientClosed is nginx's 499: the client closed the request.
const statusClientClosed = 499

func scopeOf(path string) string {
	switch strings.TrimPrefix(path, BasePath) {
	case "/accounts":
		return string(apikey.ScopeAccountsRead)
	case "/campaigns":
		return string(apikey.ScopeCampaignsRead)
	}
	return string(apikey.ScopeInsightsRead)
}

// admit lets at most MaxInFlight requests through at once, in the order
// they arrived. Each admitted request holds at most one database connection
// at a time (key lookup, then page), so with MaxInFlight equal to the pool's
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
	ctx, cancel := context.WithTimeout(c.Request.Context(), s.dbWait)
	var t0 time.Time
	if s.metrics != nil {
		t0 = time.Now()
		s.metrics.Queued()
	}
	err := s.gate.Acquire(ctx, 1)
	if s.metrics != nil {
		s.admitWait(t0, err)
	}
	cancel()
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
	defer s.gate.Release(1)
	c.Next()
}

// noteDatabase tells the database breaker how a call ended: a failure
// other than "no such key" (and not caused by the client leaving) counts.
func (s *Server) noteDatabase(ctx context.Context, err error) {
	switch {
	case err == nil, errors.Is(err, keys.ErrUnauthenticated):
		s.dbBreaker.succeeded()
	case !clientGone(ctx):
		s.dbBreaker.failed(s.now())
	}
}

// dbContext bounds one database call of a request by the database deadline.
func (s *Server) dbContext(c *gin.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.Request.Context(), s.dbWait)
}

// fail writes the error body of SPEC §7 and stops the pipeline. A refusal
// closes the connection (a client that is refused does not keep a socket
// for the idle timeout), and a 503 says when to come back.
func (s *Server) fail(c *gin.Context, status int, message any) {
	h := c.Writer.Header()
	h.Set("Connection", "close")
	if status == http.StatusServiceUnavailable && h.Get("Retry-After") == "" {
		h.Set("Retry-After", "1")
	}
	c.AbortWithStatusJSON(status, errorBody{StatusCode: status, Message: message})
}

func (s *Server) healthz(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"status": "ok"})
}

// readyz answers from a check at most readyTTL old (readiness), so that a
// flood of probes costs the dependencies one check a second.
func (s *Server) readyz(c *gin.Context) {
	r := s.ready.get(c.Request.Context(), s)
	checks := gin.H{"database": r.database, "rateLimitStore": r.limiter}
	if rs, ok := s.store.(replicaStatus); ok {
		// Detail only: reads fall back to the primary, so a replica that
		// is down or lags does not make the replica unready.
		checks["databaseReplicas"] = rs.Status()
	}
	if !r.ok {
		c.Header("Retry-After", "1")
		c.JSON(http.StatusServiceUnavailable, gin.H{"statusCode": http.StatusServiceUnavailable, "message": "not ready", "checks": checks})
		return
	}
	c.JSON(http.StatusOK, gin.H{"status": "ready", "checks": checks})
}

func (s *Server) openAPI(c *gin.Context) {
	if len(s.openapi) == 0 {
		s.fail(c, http.StatusNotFound, "no OpenAPI document configured")
		return
	}
	c.Data(http.StatusOK, "application/json", s.openapi)
}
