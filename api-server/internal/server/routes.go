package server

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/adsnap/svc/api-server/internal/downloads"
	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/reference"

	"github.com/gin-gonic/gin"
	"golang.org/x/sync/semaphore"
)

// New returns the API as an http.Handler.
func New(cfg Config) (http.Handler, error) {
	h, err := NewHandlers(cfg)
	if err != nil {
		return nil, err
	}
	return h.API, nil
}

// Handlers are what the server serves: the API on its public port, and the
// readiness detail for an operators' listener.
type Handlers struct {
	// API is the public port's handler (New's).
	API http.Handler
	// Readiness answers GET with /readyz's answer plus each read replica's
	// redacted URL, lag and the reason it is skipped: serve mounts it at
	// /readyz on the metrics listener (--metrics-addr), never the API's port.
	Readiness http.Handler
	// draining is the server's flag that Drain sets (drain.go).
	draining *drainFlag
}

// NewHandlers is New with the readiness detail.
func NewHandlers(cfg Config) (*Handlers, error) {
	s, err := newServer(cfg)
	if err != nil {
		return nil, err
	}

	// gin's mode is a global of gin's: the program sets it (the cli
	// package, once), not this constructor.
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
		s.refuse(c, http.StatusNotFound, "no such endpoint; see "+BasePath+"/openapi.json")
	})
	r.NoMethod(func(c *gin.Context) {
		s.chargeIP(c)
		c.Header("Allow", "GET, HEAD")
		s.refuse(c, http.StatusMethodNotAllowed, "method not allowed: this API is read-only and accepts GET and HEAD only")
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
	if s.reference != nil { // the API reference (package reference)
		get(r, reference.Path, s.apiReference)
		get(r, reference.Path+"/:asset", s.apiReference)
	}
	if s.downloads != nil { // the /developers/ site (package downloads)
		site := gin.WrapH(s.downloads)
		get(r, downloads.Prefix, site)
		get(r, downloads.Prefix+":file", site)
	}

	// The API: steps 2 to 9 in serve (serve.go), one value of endpoints
	// (endpoints.go) each.
	for i := range endpoints {
		get(r, BasePath+endpoints[i].path, s.serve(&endpoints[i]))
	}
	// Compression around it all (compress.go).
	api, err := compressed(r)
	if err != nil {
		return nil, fmt.Errorf("compression: %w", err)
	}
	return &Handlers{API: api, Readiness: http.HandlerFunc(s.readyDetail), draining: &s.draining}, nil
}

// newServer checks cfg and fills the Server that NewHandlers routes to.
func newServer(cfg Config) (*Server, error) {
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
	if n := len(cfg.TokenSecret); n > 0 && n < minTokenSecret {
		return nil, fmt.Errorf("server: the token secret must be at least %d bytes, got %d", minTokenSecret, n)
	}
	v6 := cmp.Or(cfg.IPv6Prefix, DefaultIPv6Prefix)
	if v6 < 1 || v6 > 128 {
		return nil, fmt.Errorf("server: IPv6Prefix must be between 1 and 128, got %d", v6)
	}
	s := &Server{
		keys: cfg.Keys, store: cfg.Store, limiter: cfg.Limiter,
		keyLimit:   ratelimit.PerMinute("key", l.KeyPerMinute),
		orgLimit:   ratelimit.PerMinute("org", l.OrgPerMinute),
		ipLimit:    ratelimit.PerMinute("ip", l.IPPerMinute),
		ipv6Prefix: v6,
		refusals:   newIPRefusals(),
		hsts:       cfg.HSTS, openapi: cfg.OpenAPIJSON,
		log: cfg.Logger, accessOut: cfg.AccessLog, now: cfg.Now,
		metrics: cfg.Metrics, tracer: cfg.Tracer,
	}
	if err := s.newReference(cfg); err != nil {
		return nil, err
	}
	if cfg.DownloadsDir != "" {
		site, err := downloads.New(cfg.DownloadsDir, cfg.DownloadsSiteURL, cfg.Logger)
		if err != nil {
			return nil, err
		}
		s.downloads = site
	}
	s.known, _ = cfg.Keys.(knownKeys)
	s.replicas, _ = cfg.Store.(replicaStatus)  // before instrument wraps the store
	s.partial = partialOf(cfg.Limiter)         // likewise the limiter (limiternodes.go)
	s.readyCheck, _ = cfg.Store.(readyChecker) // and the store's readiness check (primaryready.go)
	s.fencedCheck, _ = cfg.Store.(fencedChecker)
	s.cond, _ = cfg.Store.(conditionalStore)            // and its data versions (conditional.go)
	s.tokens = newTokenKeys(cfg.TokenSecret, cfg.Store) // likewise the store's token secret (synctoken.go)
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
	s.policyHdr = fixedHeader(s.policy)
	return s, nil
}
