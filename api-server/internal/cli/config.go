package cli

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/adsnap/svc/api-server/internal/downloads"
	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/server"
	"github.com/adsnap/svc/keys-admin/database"
	"github.com/spf13/pflag"
)

// config is every setting of svc-api. Each flag takes its default from an
// SVC_* environment variable, then from the built-in value.
type config struct {
	DataDir        string
	DatabaseURL    string
	Listen         string
	RedisURL       string
	RedisNamespace string
	RedisDeadline  time.Duration
	TLSCert        string
	TLSKey         string
	SiteURL        string
	TrustedProxies string
	DownloadsDir   string
	// TokenSecret is server.Config.TokenSecret (--token-secret).
	TokenSecret   string
	Limits        server.Limits
	LogLevel      string
	PprofAddr     string
	MetricsAddr   string
	DBMaxConns    int
	MaxInFlight   int
	DBDeadline    time.Duration
	IdleTimeout   time.Duration
	MaxConnsPerIP int
	IPv6Prefix    int
	// DrainDelay: see addDrainFlag (drain.go); 0 outside serve.
	DrainDelay time.Duration
	// KeyRecheck: see addKeyRecheckFlag (keyrecheck.go).
	KeyRecheck time.Duration
	// ChangeRetention: --change-retention of import and prune (prune.go).
	ChangeRetention string
	// statementTimeout, when set, goes into a PostgreSQL URL (serve sets it
	// to DBDeadline; migrate and import run without one).
	statementTimeout time.Duration

	// listener, when not nil, is the socket serve uses instead of
	// listening on Listen (the demo takes its port before anything else).
	listener net.Listener

	// ReplicaURLs are PostgreSQL read replicas (comma-separated) for the
	// snapshot reads; ReplicaMaxLag is how far behind one may be.
	ReplicaURLs   string
	ReplicaMaxLag time.Duration

	// mount, if set, wraps the API's handler (svc-api demo adds its
	// settings pages); never set from a flag.
	mount func(api http.Handler) (http.Handler, error)

	// demoScale is svc-api demo's --scale (small or large; issue 46).
	demoScale string

	// logs, when not nil, is the buffer under serve's logger: serve runs
	// its flush loop (logBuffer.Run) for as long as it serves.
	logs *logBuffer
}

// envErrors collects environment variables that do not parse.
type envErrors []string

func (e *envErrors) int(name string, def int) int {
	v, ok := os.LookupEnv(name)
	if !ok || v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		*e = append(*e, fmt.Sprintf("%s=%q: want an integer", name, v))
		return def
	}
	return n
}

func (e *envErrors) duration(name string, def time.Duration) time.Duration {
	v, ok := os.LookupEnv(name)
	if !ok || v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		*e = append(*e, fmt.Sprintf("%s=%q: want a duration such as 250ms", name, v))
		return def
	}
	return d
}

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

// defaultDataDir is ./.data unless SVC_DATA_DIR says otherwise.
func defaultDataDir() string { return env("SVC_DATA_DIR", ".data") }

// addDatabaseFlags adds --data-dir and --database-url.
func addDatabaseFlags(fs *pflag.FlagSet, c *config, file string) {
	fs.StringVar(&c.DataDir, "data-dir", defaultDataDir(), "directory of the embedded SQLite database (env SVC_DATA_DIR)")
	// URLs may hold a password: their defaults are read from the
	// environment at run time (fromEnv), never shown by --help.
	fs.StringVar(&c.DatabaseURL, "database-url", "",
		"postgres://USER@HOST:PORT/DB?sslmode=… or sqlite:PATH (default $SVC_DATABASE_URL, else sqlite:DATA_DIR/"+file+")")
}

// fromEnv fills the settings whose defaults must not appear in --help.
func (c *config) fromEnv() {
	if c.DatabaseURL == "" {
		c.DatabaseURL = os.Getenv("SVC_DATABASE_URL")
	}
	if c.RedisURL == "" {
		c.RedisURL = os.Getenv("SVC_REDIS_URL")
	}
	if c.ReplicaURLs == "" {
		c.ReplicaURLs = os.Getenv("SVC_DATABASE_REPLICA_URLS")
	}
}

// replicaURLs returns --database-replica-urls split at commas.
func (c *config) replicaURLs() []string {
	var out []string
	for u := range strings.SplitSeq(c.ReplicaURLs, ",") {
		if u = strings.TrimSpace(u); u != "" {
			out = append(out, u)
		}
	}
	return out
}

func (c *config) databaseURL(file string) (string, error) {
	c.fromEnv()
	if c.DatabaseURL != "" {
		return c.DatabaseURL, nil
	}
	if err := os.MkdirAll(c.DataDir, 0o700); err != nil {
		return "", fmt.Errorf("data directory: %w", err)
	}
	return "sqlite:" + filepath.Join(c.DataDir, file), nil
}

// addServeFlags adds the flags of a running server.
func addServeFlags(fs *pflag.FlagSet, c *config, e *envErrors) {
	fs.StringVar(&c.Listen, "listen", env("SVC_LISTEN_ADDR", "127.0.0.1:8080"), "address to listen on (env SVC_LISTEN_ADDR)")
	fs.StringVar(&c.RedisURL, "redis-url", "",
		"shared rate-limit store: redis://HOST:PORT/DB (or rediss://) for one node, redis://SENTINEL:PORT/DB?master_name=NAME&addr=SENTINEL2:PORT for Sentinel, "+
			"redis://NODE1:PORT?addr=NODE2:PORT&addr=NODE3:PORT for a Cluster (default $SVC_REDIS_URL; empty: in-process limits, per replica)")
	fs.StringVar(&c.ReplicaURLs, "database-replica-urls", "",
		"comma-separated postgres:// URLs of read replicas for the snapshot reads; key lookups stay on the primary (default $SVC_DATABASE_REPLICA_URLS)")
	fs.DurationVar(&c.ReplicaMaxLag, "database-replica-max-lag", e.duration("SVC_DATABASE_REPLICA_MAX_LAG", 10*time.Second),
		"a read replica further behind its primary is skipped, reads going to the primary (env SVC_DATABASE_REPLICA_MAX_LAG)")
	fs.StringVar(&c.RedisNamespace, "redis-namespace", env("SVC_REDIS_NAMESPACE", "svc"), "prefix of the rate-limit keys in Redis (env SVC_REDIS_NAMESPACE)")
	fs.DurationVar(&c.RedisDeadline, "redis-deadline", e.duration("SVC_REDIS_DEADLINE", ratelimit.DefaultDeadline),
		"longest wait for the rate-limit store before refusing with 503 (env SVC_REDIS_DEADLINE)")
	fs.StringVar(&c.TLSCert, "tls-cert", os.Getenv("SVC_TLS_CERT"), "PEM certificate file: serve HTTPS (env SVC_TLS_CERT)")
	fs.StringVar(&c.TLSKey, "tls-key", os.Getenv("SVC_TLS_KEY"), "PEM private key file of --tls-cert (env SVC_TLS_KEY)")
	fs.StringVar(&c.SiteURL, "site-url", os.Getenv("SVC_SITE_URL"), "public URL of the site, e.g. https://api.example.com; required with --downloads-dir, whose page and install script name it (env SVC_SITE_URL)")
	fs.StringVar(&c.TrustedProxies, "trusted-proxies", os.Getenv("SVC_TRUSTED_PROXIES"),
		"comma-separated IPs/CIDRs of proxies whose X-Forwarded-For is believed (no other forwarding header is); default none (env SVC_TRUSTED_PROXIES)")
	fs.StringVar(&c.DownloadsDir, "downloads-dir", os.Getenv("SVC_DOWNLOADS_DIR"), "directory served under /developers/ (env SVC_DOWNLOADS_DIR)")
	fs.StringVar(&c.TokenSecret, "token-secret", os.Getenv("SVC_TOKEN_SECRET"),
		"HMAC key (16 bytes or more) of the changes feed's sync tokens and cursors; default: the one the migrations generated and stored in the database, shared by every replica. Changing it makes the tokens issued before a 400: clients sync again from scratch (env SVC_TOKEN_SECRET)")
	fs.IntVar(&c.DBMaxConns, "database-max-conns", e.int("SVC_DATABASE_MAX_CONNS", 0),
		"size of the database connection pool; 0: on PostgreSQL 4 per CPU (GOMAXPROCS), at least 8, 20 outside serve; 4 on SQLite (env SVC_DATABASE_MAX_CONNS)")
	fs.IntVar(&c.MaxInFlight, "max-in-flight", e.int("SVC_MAX_IN_FLIGHT", 0),
		"API requests processed at once, the others waiting in arrival order; 0: the pool's size (env SVC_MAX_IN_FLIGHT)")
	fs.DurationVar(&c.DBDeadline, "database-deadline", e.duration("SVC_DATABASE_DEADLINE", server.DefaultDatabaseDeadline),
		"longest a request waits for the database (each query, and a place among --max-in-flight) before 503; also PostgreSQL's statement_timeout (env SVC_DATABASE_DEADLINE)")
	fs.DurationVar(&c.IdleTimeout, "idle-timeout", e.duration("SVC_IDLE_TIMEOUT", defaultIdleTimeout),
		"how long an idle keep-alive connection stays open (env SVC_IDLE_TIMEOUT)")
	fs.IntVar(&c.MaxConnsPerIP, "max-conns-per-ip", e.int("SVC_MAX_CONNS_PER_IP", server.DefaultMaxConnsPerIP),
		"connections open at once from one client IP; more are closed on accept; --trusted-proxies peers are not capped; 0: no cap (env SVC_MAX_CONNS_PER_IP)")
	fs.IntVar(&c.IPv6Prefix, "ipv6-prefix", e.int("SVC_IPV6_PREFIX", server.DefaultIPv6Prefix),
		"prefix length by which the per-IP limits and --max-conns-per-ip count an IPv6 client, 1 to 128 (128: each address); IPv4 clients count by address (env SVC_IPV6_PREFIX)")
	fs.StringVar(&c.PprofAddr, "pprof-addr", os.Getenv("SVC_PPROF_ADDR"),
		"loopback address of a net/http/pprof listener for profiling, e.g. 127.0.0.1:6060; off when empty (env SVC_PPROF_ADDR)")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", os.Getenv("SVC_METRICS_ADDR"),
		"address of a Prometheus /metrics listener, never the API's port, e.g. 127.0.0.1:9090 or :9090 inside a private network; off when empty (env SVC_METRICS_ADDR)")
	fs.IntVar(&c.Limits.KeyPerMinute, "limit-key-per-minute", e.int("SVC_LIMIT_KEY_PER_MINUTE", server.DefaultLimits.KeyPerMinute),
		"requests per minute per key (env SVC_LIMIT_KEY_PER_MINUTE)")
	fs.IntVar(&c.Limits.OrgPerMinute, "limit-org-per-minute", e.int("SVC_LIMIT_ORG_PER_MINUTE", server.DefaultLimits.OrgPerMinute),
		"requests per minute per organization (env SVC_LIMIT_ORG_PER_MINUTE)")
	fs.IntVar(&c.Limits.IPPerMinute, "limit-ip-per-minute", e.int("SVC_LIMIT_IP_PER_MINUTE", server.DefaultLimits.IPPerMinute),
		"requests per minute per client IP (env SVC_LIMIT_IP_PER_MINUTE)")
	addKeyRecheckFlag(fs, c, e) // keyrecheck.go
}

// checkDownloads is the check of --downloads-dir: the /developers/ page and
// install-svc.sh name the site users install from (and send their key to),
// and only --site-url names it, never a request (DESIGN §3, issue 30).
func (c *config) checkDownloads() error {
	switch {
	case c.DownloadsDir == "":
		return nil
	case c.SiteURL == "":
		return usageError{errors.New("--downloads-dir needs --site-url (or SVC_SITE_URL): the public URL users install svc from, " +
			"e.g. https://api.example.com; the downloads never take their site from a request's Host or X-Forwarded-* headers")}
	case !downloads.PlainSiteURL(c.SiteURL):
		// Not echoed: a URL with user information may hold a password.
		return usageError{errors.New("--site-url: want http(s)://host[:port][/path], with no user, query or quote (it goes into install-svc.sh)")}
	}
	return nil
}

func (c *config) trustedProxies() []string {
	var out []string
	for p := range strings.SplitSeq(c.TrustedProxies, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// defaultIdleTimeout is --idle-timeout's default: API clients send bursts
// of requests and then wait; 30 s keeps a client's connection through a
// burst without holding sockets for minutes (Go's client keeps idle
// connections 90 s and retries an idempotent request on one the server closed).
const defaultIdleTimeout = 30 * time.Second

// isPostgresURL reports whether rawURL names a PostgreSQL database.
func isPostgresURL(rawURL string) bool {
	return strings.HasPrefix(rawURL, "postgres://") || strings.HasPrefix(rawURL, "postgresql://")
}

// withParam adds the run-time parameter name=value to a postgres:// URL
// that does not set it (pgx passes unknown URL parameters to the server as
// run-time parameters): the URL's own setting wins. Other URLs are
// returned unchanged.
func withParam(rawURL, name, value string) string {
	if !isPostgresURL(rawURL) {
		return rawURL
	}
	if u, err := url.Parse(rawURL); err != nil || u.Query().Has(name) {
		return rawURL // a URL pgx cannot read fails in Connect, with its own message
	}
	sep := "?"
	if strings.Contains(rawURL, "?") {
		sep = "&"
	}
	return rawURL + sep + name + "=" + url.QueryEscape(value)
}

// withStatementTimeout adds PostgreSQL's statement_timeout (d; none when
// d ≤ 0) to a postgres:// URL that does not set it, so that the server
// itself abandons a query the client stopped waiting for.
func withStatementTimeout(rawURL string, d time.Duration) string {
	if d <= 0 {
		return rawURL
	}
	return withParam(rawURL, "statement_timeout", strconv.FormatInt(d.Milliseconds(), 10))
}

// serveURL is the URL serve connects with: statement_timeout d, and
// plan_cache_mode=force_generic_plan, unless the URL sets them. Every
// statement on serve's request path is a parameterized read whose plan is
// the same for all parameters (an index range scan in the order of its
// ORDER BY: TestGenericPlans), but PostgreSQL's own choice (plan_cache_mode
// auto) kept planning /insights afresh on every request once the table
// held 10,000,000 rows, because the generic plan's estimated cost is
// higher there: 0.081 ms of planning a request, PostgreSQL's CPU per
// request 0.187 ms instead of 0.108 ms at 10,000 rows (make bench's scale
// run).
func serveURL(rawURL string, d time.Duration) string {
	return withParam(withStatementTimeout(rawURL, d), "plan_cache_mode", "force_generic_plan")
}

// accessLog is the writer of serve's logger (its logBuffer), where the
// server writes the access log's info lines itself; nil (every line
// through the logger) when serve's logger is not newBufferedLogger's.
func (c *config) accessLog() io.Writer {
	if c.logs == nil {
		return nil
	}
	return c.logs
}

// serveConns is the pool size of `serve` on the database at url:
// --database-max-conns, or by default on PostgreSQL 4 per CPU of this
// process (GOMAXPROCS), at least 8; on SQLite the driver's default (4).
//
// PostgreSQL spends more CPU on each statement the more backends run at
// once (snapshots, locks and the scheduler grow with them). On the 2-core
// benchmark machine (api-server and PostgreSQL on the same cores),
// PostgreSQL's CPU per request with 8 connections instead of the earlier
// default of 20, measured back to back: /accounts 0.089 ms instead of
// 0.102, /campaigns 0.104 instead of 0.134, /insights 0.20 instead of
// 0.24. Every replica has a pool of its own: the default keeps a few
// replicas well under PostgreSQL's max_connections (100).
func (c *config) serveConns(url string) int {
	if c.DBMaxConns > 0 || !isPostgresURL(url) {
		return c.DBMaxConns
	}
	return max(8, 4*runtime.GOMAXPROCS(0))
}

// maxInFlight is --max-in-flight, or by default the pool's size less one:
// each request in flight holds at most one connection at a time, so none
// then waits inside the pool (server.admit), and the one left is the
// last-used writer's (keys.Authenticator.Run, which holds at most one at a
// time and must neither wait behind the queue of requests nor make a
// request wait in the pool). Fewer places trade throughput for a lower p99
// on a small machine (api-server/README.md, Performance); more only move
// the wait into the pool.
func (c *config) maxInFlight(db *database.DB) int {
	if c.MaxInFlight > 0 {
		return c.MaxInFlight
	}
	return max(db.MaxConns()-1, 1)
}
