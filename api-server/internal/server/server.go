package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/telemetry"
	"github.com/adsnap/svc/keys-admin/keys"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/sync/semaphore"
)

// BasePath is the API root (SPEC §4).
const BasePath = "/api/v1/developer"

// KeyLookup resolves a presented key (keys-admin's *keys.Authenticator).
type KeyLookup interface {
	Lookup(ctx context.Context, presented string) (*keys.Principal, error)
}

// knownKeys is a KeyLookup that remembers what never changes about the
// keys it resolved (*keys.Authenticator on PostgreSQL): for such a key the
// limiter runs first, from the remembered organization, and the key's
// state is read in the round trip of its rows (limitKnownKey, readRows).
type knownKeys interface {
	Known(presented string) (*keys.Pending, bool)
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
	// IPv6Prefix is the prefix length by which the per-IP limits count an
	// IPv6 client (1 to 128; DefaultIPv6Prefix if 0); IPv4 clients count
	// by address.
	IPv6Prefix int
	// HSTS adds Strict-Transport-Security (serving TLS, or behind an https site URL).
	HSTS bool
	// OpenAPIJSON is served at BasePath/openapi.json.
	OpenAPIJSON []byte
	// DownloadsDir, when set, is served at /developers/ (package downloads).
	DownloadsDir string
	// DownloadsSiteURL is the site named in the install commands of the
	// /developers/ page and in the install script's default; required
	// with DownloadsDir (New fails without it): nothing of a request (Host,
	// an absolute-form target, X-Forwarded-*) ever names the site.
	DownloadsSiteURL string
	Logger           *slog.Logger
	// AccessLog, when set, is the writer of Logger's handler, itself slog's
	// JSONHandler: the access log's info lines are written to it directly,
	// in that handler's format (accessLine), not through Logger; its other
	// lines (5xx) still go through Logger. Nil: every line through Logger.
	AccessLog io.Writer
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
	// TokenSecret is the HMAC key of the changes feed's sync tokens and
	// cursors (synctoken.go); empty: the one the migrations generated and
	// stored in the database (store.TokenSecret), shared by every replica.
	TokenSecret []byte
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
	keys     KeyLookup
	known    knownKeys // nil: every key takes the sequential path
	store    Store
	replicas replicaStatus // cfg.Store's read replicas (before instrument wraps it); nil without
	limiter  ratelimit.Limiter
	keyLimit ratelimit.Limit
	orgLimit ratelimit.Limit
	ipLimit  ratelimit.Limit
	// ipv6Prefix: see Config.IPv6Prefix.
	ipv6Prefix int
	refusals   *ipRefusals
	gate       *semaphore.Weighted
	dbWait     time.Duration
	ready      readiness
	failures   onceASecond
	breaker    breaker // of the limit store (unused with partial: it breaks per node)
	// partial is cfg.Limiter when its store has parts that fail alone (a
	// Redis Cluster; limiternodes.go), else nil.
	partial partialLimiter
	// cond is cfg.Store's data versions, if it keeps them (conditional.go).
	cond conditionalStore
	// readyCheck is cfg.Store's readiness check, if it has one (primaryready.go).
	readyCheck readyChecker
	// fencedCheck is cfg.Store's Fenced, if it has one (primaryready.go).
	fencedCheck fencedChecker
	// draining is set by Handlers.Drain: /readyz answers 503 (drain.go).
	draining  drainFlag
	dbBreaker breaker // of the database
	policy    string
	policyHdr []string // {policy}: see fixedHeader
	hsts      bool
	openapi   []byte
	downloads http.Handler // the /developers/ site; nil without Config.DownloadsDir
	reference http.Handler // the API reference at /developers/api (reference.go); nil without Config.OpenAPIJSON
	log       *slog.Logger
	accessOut io.Writer // Config.AccessLog
	now       func() time.Time
	metrics   *telemetry.Metrics
	tracer    trace.Tracer
	tokens    *tokenKeys // the changes feed's token key (synctoken.go)
}
