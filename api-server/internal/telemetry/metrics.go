package telemetry

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"
)

// Namespace prefixes every metric of svc-api.
const Namespace = "svc_api"

// UnmatchedRoute is the route label of a request that matched no route:
// raw paths are never a label value.
const UnmatchedRoute = "unmatched"

// Metrics are svc-api's Prometheus metrics, on a registry of their own.
// Every label is bounded: route templates, status codes, bucket names and
// fixed outcomes; never a key, an organization, an IP or a raw path.
type Metrics struct {
	// Registry holds the metrics below and the Go runtime and process
	// collectors; Handler serves it.
	Registry *prometheus.Registry

	requests         *prometheus.CounterVec
	duration         *prometheus.HistogramVec
	limiterDecisions *prometheus.CounterVec
	limiterErrors    prometheus.Counter
	databaseErrors   *prometheus.CounterVec
	deadlines        *prometheus.CounterVec
	queueDepth       prometheus.Gauge
	queueWait        prometheus.Histogram
	keyLookups       *prometheus.CounterVec
	lastUsedWrites   *prometheus.CounterVec
}

// NewMetrics returns the metrics on a new registry.
func NewMetrics() *Metrics {
	m := &Metrics{Registry: prometheus.NewRegistry()}
	f := func(c prometheus.Collector) { m.Registry.MustRegister(c) }
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "http_requests_total",
		Help: "HTTP requests answered, by route template (\"unmatched\" for unknown paths) and status code."}, []string{"route", "code"})
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: "http_request_duration_seconds",
		Help:    "Time from a request's arrival to its answer, by route template and status code.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}}, []string{"route", "code"})
	m.limiterDecisions = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "ratelimit_decisions_total",
		Help: "Rate-limit bucket decisions, by bucket (ip, key, org, ready) and outcome (allowed, refused; refused also counts the per-IP refusals remembered in process)."},
		[]string{"bucket", "outcome"})
	m.limiterErrors = prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: "ratelimit_errors_total",
		Help: "Calls to the rate-limit store that failed or missed their deadline (each one a 503 when it served a request)."})
	m.databaseErrors = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "database_errors_total",
		Help: "Database calls that failed, by operation (key_lookup, accounts, campaigns, insights, ping)."}, []string{"operation"})
	m.deadlines = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "deadline_exceeded_total",
		Help: "Calls cut by their deadline, by dependency (database, ratelimit, admission)."}, []string{"dependency"})
	m.queueDepth = prometheus.NewGauge(prometheus.GaugeOpts{Namespace: Namespace, Name: "admission_queue_depth",
		Help: "Requests past the limiter waiting for one of --max-in-flight places."})
	m.queueWait = prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: Namespace, Name: "admission_wait_seconds",
		Help:    "Time requests waited for a place (admitted or not).",
		Buckets: []float64{.0001, .0005, .001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}})
	m.keyLookups = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "key_lookups_total",
		Help: "API key lookups, by outcome (found, unauthenticated, error)."}, []string{"outcome"})
	m.lastUsedWrites = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "key_last_used_writes_total",
		Help: "Background writes of a key's last-used time, by outcome (ok, error)."}, []string{"outcome"})
	for _, c := range []prometheus.Collector{m.requests, m.duration, m.limiterDecisions, m.limiterErrors, m.databaseErrors,
		m.deadlines, m.queueDepth, m.queueWait, m.keyLookups, m.lastUsedWrites, importRuns,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})} {
		f(c)
	}
	// Every series that a dashboard or alert divides by exists from the start.
	for _, o := range []string{"found", "unauthenticated", "error"} {
		m.keyLookups.WithLabelValues(o)
	}
	for _, o := range []string{"ok", "error"} {
		m.lastUsedWrites.WithLabelValues(o)
	}
	for _, op := range []string{"key_lookup", "accounts", "campaigns", "insights", "ping"} {
		m.databaseErrors.WithLabelValues(op)
	}
	for _, b := range []string{"ip", "key", "org"} {
		m.limiterDecisions.WithLabelValues(b, "allowed")
		m.limiterDecisions.WithLabelValues(b, "refused")
	}
	for _, d := range []string{"database", "ratelimit", "admission"} {
		m.deadlines.WithLabelValues(d)
	}
	return m
}

// RegisterDB adds database/sql's pool statistics of db (go_sql_* with
// db_name="svc_api": open, in use, idle connections, waits, closes).
func (m *Metrics) RegisterDB(db *sql.DB) {
	if m != nil {
		m.Registry.MustRegister(collectors.NewDBStatsCollector(db, Namespace))
	}
}

// PoolStatser is what RegisterRedisPool reads: every go-redis client has it.
type PoolStatser interface {
	PoolStats() *redis.PoolStats
}

// RegisterRedisPool adds the rate-limit store's connection pool statistics.
func (m *Metrics) RegisterRedisPool(c PoolStatser) {
	if m != nil {
		m.Registry.MustRegister(redisPoolCollector{c})
	}
}

// codes holds the text of every status code, so that labelling a request
// allocates nothing.
var codes = func() (t [600]string) {
	for i := range t {
		t[i] = strconv.Itoa(i)
	}
	return
}()

func codeLabel(status int) string {
	if status >= 0 && status < len(codes) {
		return codes[status]
	}
	return "other"
}

// Request records one answered request. route is the route template ("" if
// none matched).
func (m *Metrics) Request(route string, status int, d time.Duration) {
	if m == nil {
		return
	}
	if route == "" {
		route = UnmatchedRoute
	}
	code := codeLabel(status)
	m.requests.WithLabelValues(route, code).Inc()
	m.duration.WithLabelValues(route, code).Observe(d.Seconds())
}

// LimiterDecision records one bucket's decision.
func (m *Metrics) LimiterDecision(bucket string, allowed bool) {
	if m == nil {
		return
	}
	outcome := "refused"
	if allowed {
		outcome = "allowed"
	}
	m.limiterDecisions.WithLabelValues(bucket, outcome).Inc()
}

// LimiterError records a failed call to the rate-limit store.
func (m *Metrics) LimiterError(deadline bool) {
	if m == nil {
		return
	}
	m.limiterErrors.Inc()
	if deadline {
		m.deadlines.WithLabelValues("ratelimit").Inc()
	}
}

// DatabaseError records a failed database call of operation op.
func (m *Metrics) DatabaseError(op string, deadline bool) {
	if m == nil {
		return
	}
	m.databaseErrors.WithLabelValues(op).Inc()
	if deadline {
		m.deadlines.WithLabelValues("database").Inc()
	}
}

// Queued records a request starting to wait for a place; Admitted, that it
// stopped waiting after d (admitted or not; deadline when the wait was cut
// by the database deadline).
func (m *Metrics) Queued() {
	if m != nil {
		m.queueDepth.Inc()
	}
}

// Admitted: see Queued.
func (m *Metrics) Admitted(d time.Duration, deadline bool) {
	if m == nil {
		return
	}
	m.queueDepth.Dec()
	m.queueWait.Observe(d.Seconds())
	if deadline {
		m.deadlines.WithLabelValues("admission").Inc()
	}
}

// KeyLookup records a key lookup's outcome: found, unauthenticated or error.
func (m *Metrics) KeyLookup(outcome string) {
	if m != nil {
		m.keyLookups.WithLabelValues(outcome).Inc()
	}
}

// LastUsedWrite records one background write of a key's last-used time
// (keys.AuthenticatorOptions.LastUsedHook).
func (m *Metrics) LastUsedWrite(err error) {
	if m == nil {
		return
	}
	if err != nil {
		m.lastUsedWrites.WithLabelValues("error").Inc()
		return
	}
	m.lastUsedWrites.WithLabelValues("ok").Inc()
}

// importRuns is package-level so that the import command records a run
// with one call (ImportRun) wherever it runs; a serving process's registry
// includes it.
var importRuns = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "import_runs_total",
	Help: "Snapshot imports run by this process, by outcome (ok, error)."}, []string{"outcome"})

var importInit sync.Once

// ImportRun records one snapshot import that ended with err (nil: ok).
func ImportRun(err error) {
	importInit.Do(func() { importRuns.WithLabelValues("ok"); importRuns.WithLabelValues("error") })
	if err != nil {
		importRuns.WithLabelValues("error").Inc()
		return
	}
	importRuns.WithLabelValues("ok").Inc()
}

// redisPoolCollector reads go-redis's pool statistics at each scrape.
type redisPoolCollector struct{ c PoolStatser }

var (
	redisHits     = prometheus.NewDesc(Namespace+"_redis_pool_hits_total", "Times a free connection was found in the rate-limit store's pool.", nil, nil)
	redisMisses   = prometheus.NewDesc(Namespace+"_redis_pool_misses_total", "Times no free connection was found in the pool.", nil, nil)
	redisTimeouts = prometheus.NewDesc(Namespace+"_redis_pool_timeouts_total", "Times a wait for a pool connection timed out.", nil, nil)
	redisConns    = prometheus.NewDesc(Namespace+"_redis_pool_connections", "Connections in the pool, by state (total, idle, stale: closed since start).", []string{"state"}, nil)
)

func (redisPoolCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- redisHits
	ch <- redisMisses
	ch <- redisTimeouts
	ch <- redisConns
}

func (r redisPoolCollector) Collect(ch chan<- prometheus.Metric) {
	s := r.c.PoolStats()
	if s == nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(redisHits, prometheus.CounterValue, float64(s.Hits))
	ch <- prometheus.MustNewConstMetric(redisMisses, prometheus.CounterValue, float64(s.Misses))
	ch <- prometheus.MustNewConstMetric(redisTimeouts, prometheus.CounterValue, float64(s.Timeouts))
	ch <- prometheus.MustNewConstMetric(redisConns, prometheus.GaugeValue, float64(s.TotalConns), "total")
	ch <- prometheus.MustNewConstMetric(redisConns, prometheus.GaugeValue, float64(s.IdleConns), "idle")
	ch <- prometheus.MustNewConstMetric(redisConns, prometheus.GaugeValue, float64(s.StaleConns), "stale")
}

// IsDeadline reports whether err is a missed deadline (a context's, or a
// connection's).
func IsDeadline(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded)
}
