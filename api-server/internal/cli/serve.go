package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	apiserver "github.com/adsnap/svc/api-server"
	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/server"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/telemetry"
	"github.com/adsnap/svc/keys-admin/database"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"
)

func newServe() *cobra.Command {
	var c config
	var envErr envErrors
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the API",
		Long: `serve runs the API until SIGINT or SIGTERM. Then /readyz answers 503 at once while the API
keeps serving for --drain-delay (5s), so that a load balancer checking /readyz takes this
replica out first; then the listener closes and the requests in flight finish (30 s at most).

With --redis-url the rate limits live in Redis and are shared by every replica; without
it they are kept in process memory, per replica. Serve HTTPS with --tls-cert/--tls-key,
or plain HTTP on a loopback address or behind a TLS-terminating proxy (then set
--site-url to the https address and --trusted-proxies to the proxy's addresses).
Run 'svc-api migrate' before the first start.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(envErr) > 0 {
				return usageError{errors.New(strings.Join(envErr, "; "))}
			}
			if err := c.checkDownloads(); err != nil {
				return err // before anything is opened
			}
			log, logs, err := newBufferedLogger(cmd.ErrOrStderr(), c.LogLevel)
			if err != nil {
				return err
			}
			c.logs = logs
			ratelimit.SetLogger(log)
			c.statementTimeout = c.DBDeadline
			url, err := c.databaseURL("svc.db")
			if err != nil {
				return err
			}
			db, err := database.Connect(cmd.Context(), serveURL(url, c.statementTimeout), database.Options{MaxOpenConns: c.serveConns(url)})
			if err != nil {
				return err
			}
			defer db.Close()
			return serve(cmd.Context(), &c, db, log, nil)
		},
	}
	addDatabaseFlags(cmd.Flags(), &c, "svc.db")
	addServeFlags(cmd.Flags(), &c, &envErr)
	addDrainFlag(cmd.Flags(), &c, &envErr) // drain.go
	cmd.Flags().StringVar(&c.LogLevel, "log-level", env("SVC_LOG_LEVEL", "info"), "debug, info, warn or error (env SVC_LOG_LEVEL)")
	return cmd
}

// serve runs the API on db until ctx is done. ready, if not nil, is called
// with the listening address once requests are accepted. It runs in named
// steps, each undone in reverse order when serve returns: check the flags,
// start the log writer, openTelemetry, openKeys, openStore, openLimiter,
// buildServer, run.
func serve(ctx context.Context, c *config, db *database.DB, log *slog.Logger, ready func(addr string)) error {
	if err := c.checkServe(); err != nil {
		return err
	}
	if c.logs != nil {
		defer c.runLogs(ctx)()
	}
	tel, err := openTelemetry(ctx, c, db, log)
	if err != nil {
		return err
	}
	defer tel.stop(ctx, log)
	ks, stopKeys := openKeys(ctx, c, db, tel.metrics)
	defer stopKeys()
	reads, closeStore, err := openStore(ctx, c, db, log)
	if err != nil {
		return err
	}
	defer closeStore()
	lim, err := openLimiter(ctx, c, tel.metrics, log)
	if err != nil {
		return err
	}
	defer lim.Close()
	hs, h, err := buildServer(c, db, ks, reads, lim, tel, log)
	if err != nil {
		return err
	}
	return run(ctx, c, hs, h, tel.metrics, log, ready)
}

// checkServe checks the flags that serve reads and the demo shares.
func (c *config) checkServe() error {
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return usageError{errors.New("--tls-cert and --tls-key go together")}
	}
	if c.IPv6Prefix < 1 || c.IPv6Prefix > 128 {
		return usageError{fmt.Errorf("--ipv6-prefix must be between 1 and 128, got %d", c.IPv6Prefix)}
	}
	if c.DBDeadline <= 0 || c.IdleTimeout <= 0 || c.MaxConnsPerIP < 0 {
		return usageError{fmt.Errorf("--database-deadline and --idle-timeout must be positive and --max-conns-per-ip 0 or more, got %s, %s, %d",
			c.DBDeadline, c.IdleTimeout, c.MaxConnsPerIP)}
	}
	if c.DrainDelay < 0 {
		return usageError{fmt.Errorf("--drain-delay must be 0 or more, got %s", c.DrainDelay)}
	}
	if c.MaxInFlight < 0 {
		return usageError{fmt.Errorf("--max-in-flight must be 0 (the pool's size) or more, got %d", c.MaxInFlight)}
	}
	if err := c.checkKeyRecheck(); err != nil {
		return err
	}
	return c.checkDownloads()
}

// runLogs writes the log's lines together (logBuffer) while serve runs; the
// function it returns stops the writer once all of them are written.
func (c *config) runLogs(ctx context.Context) func() {
	lctx, stopLogs := context.WithCancel(context.WithoutCancel(ctx))
	logsDone := make(chan struct{})
	go func() {
		defer close(logsDone)
		_ = c.logs.Run(lctx)
	}()
	return func() { stopLogs(); <-logsDone }
}

// serveTelemetry is what openTelemetry started: the metrics (nil without
// --metrics-addr) and the tracer (nil unless the OTEL_* variables ask).
type serveTelemetry struct {
	metrics     *telemetry.Metrics
	tracer      trace.Tracer
	stopTracing func(context.Context) error
}

// openTelemetry starts the metrics and the tracing, and sends the standard
// library's log and OpenTelemetry's own logger through log (every line
// JSON, issue #17 point 3).
func openTelemetry(ctx context.Context, c *config, db *database.DB, log *slog.Logger) (*serveTelemetry, error) {
	tel := &serveTelemetry{}
	if c.MetricsAddr != "" {
		if c.MetricsAddr == c.Listen {
			return nil, usageError{errors.New("--metrics-addr must differ from --listen: metrics are never served on the API's port")}
		}
		tel.metrics = telemetry.NewMetrics()
		tel.metrics.RegisterDB(db.Bun.DB)
	}
	slog.SetDefault(log)
	otel.SetLogger(logr.FromSlogHandler(log.Handler()))
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.Warn("opentelemetry", "error", err.Error())
	}))
	tracer, stopTracing, err := telemetry.StartTracing(ctx, binaryVersion())
	if err != nil {
		return nil, usageError{err}
	}
	tel.tracer, tel.stopTracing = tracer, stopTracing
	if tracer != nil {
		log.Info("tracing on: spans exported with OTLP/HTTP as the OTEL_* variables say")
	}
	return tel, nil
}

// stop flushes the traces, for at most 5 seconds.
func (tel *serveTelemetry) stop(ctx context.Context, log *slog.Logger) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := tel.stopTracing(sctx); err != nil {
		log.Warn("flushing traces", "error", err.Error())
	}
}

// openKeys returns the key authenticator with its last-used writer
// running. The writer runs until the server has stopped (the function
// returned), then writes what it holds. It takes one connection at a time,
// outside the admission gate, which keeps one connection of the pool for
// it (maxInFlight).
func openKeys(ctx context.Context, c *config, db *database.DB, metrics *telemetry.Metrics) (*keys.Authenticator, func()) {
	keyOpts := keys.AuthenticatorOptions{Recheck: c.keyRecheck()}
	if metrics != nil {
		keyOpts.LastUsedHook = metrics.LastUsedWrite
	}
	ks := keys.NewAuthenticator(db, keyOpts)
	wctx, stopWriter := context.WithCancel(context.WithoutCancel(ctx))
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		_ = ks.Run(wctx)
	}()
	return ks, func() { stopWriter(); <-writerDone }
}

// openStore opens the snapshot store on db, reading from the read replicas
// of --database-replica-urls when healthy.
func openStore(ctx context.Context, c *config, db *database.DB, log *slog.Logger) (server.Store, func(), error) {
	st, err := store.New(ctx, db)
	if err != nil {
		return nil, nil, migrateHint(err)
	}
	stopWatch := watchPrimary(ctx, c, st, log) // a demoted or fenced primary (primarywatch.go)
	closeSt := func() { stopWatch(); st.Close() }
	urls := c.replicaURLs()
	if len(urls) == 0 {
		return st, closeSt, nil
	}
	if !db.IsPostgres() {
		closeSt()
		return nil, nil, usageError{errors.New("--database-replica-urls needs a PostgreSQL primary")}
	}
	for i, u := range urls {
		if !isPostgresURL(u) {
			closeSt()
			return nil, nil, usageError{fmt.Errorf("--database-replica-urls: URL %d is not postgres://…", i+1)}
		}
		urls[i] = serveURL(u, c.statementTimeout)
	}
	rt := store.NewRouted(ctx, st, store.ReplicaOptions{URLs: urls, MaxLag: c.ReplicaMaxLag,
		Deadline: c.DBDeadline, MaxConns: c.serveConns(urls[0])}, log)
	log.Info("snapshot reads go to read replicas when healthy", "replicas", len(urls), "max_lag", c.ReplicaMaxLag.String())
	return rt, func() { rt.Close(); closeSt() }, nil
}

// openLimiter opens the rate-limit store: Redis with --redis-url (shared by
// every replica), the process's memory without.
func openLimiter(ctx context.Context, c *config, metrics *telemetry.Metrics, log *slog.Logger) (ratelimit.Limiter, error) {
	if c.RedisURL == "" {
		log.Warn("no --redis-url: rate limits are kept in this process and apply per replica; " +
			"set SVC_REDIS_URL when running more than one replica")
		return ratelimit.NewMemory(nil), nil
	}
	r, err := ratelimit.NewRedis(c.RedisURL, c.RedisNamespace, c.RedisDeadline)
	if err != nil {
		return nil, usageError{err}
	}
	if err := r.CheckMode(ctx); err != nil {
		r.Close()
		return nil, usageError{err}
	}
	if err := r.Ping(ctx); err != nil {
		// Not fatal: requests fail closed (503) until Redis answers.
		log.Warn("rate limit store not reachable yet; API requests get 503 until it is", "error", err.Error())
	}
	metrics.RegisterRedisPool(r)
	return r, nil
}

// buildServer builds the API's handlers from what the steps before opened,
// and h, the handler served: the API, wrapped by c.mount when set (the demo).
func buildServer(c *config, db *database.DB, ks *keys.Authenticator, reads server.Store, lim ratelimit.Limiter,
	tel *serveTelemetry, log *slog.Logger) (*server.Handlers, http.Handler, error) {
	openapi, err := apiserver.OpenAPIJSON()
	if err != nil {
		return nil, nil, err
	}
	hs, err := server.NewHandlers(server.Config{
		Keys: ks, Store: reads, Limiter: lim, Limits: c.Limits,
		TrustedProxies: c.trustedProxies(), IPv6Prefix: c.IPv6Prefix,
		HSTS:        c.TLSCert != "" || strings.HasPrefix(c.SiteURL, "https://"),
		OpenAPIJSON: openapi, DownloadsDir: c.DownloadsDir, Logger: log, AccessLog: c.accessLog(),
		DownloadsSiteURL: c.SiteURL,
		MaxInFlight:      c.maxInFlight(db), DatabaseDeadline: c.DBDeadline,
		Metrics: tel.metrics, Tracer: tel.tracer, TokenSecret: []byte(c.TokenSecret),
	})
	if err != nil {
		return nil, nil, usageError{err}
	}
	h := hs.API
	if c.mount != nil {
		if h, err = c.mount(h); err != nil {
			return nil, nil, err
		}
	}
	return hs, h, nil
}

// run serves h on the listener (listen) until ctx is done, with the
// profiles and the metrics listener when asked; then drains and finishes
// the requests in flight (drainAndShutdown).
func run(ctx context.Context, c *config, hs *server.Handlers, h http.Handler, metrics *telemetry.Metrics,
	log *slog.Logger, ready func(addr string)) error {
	tls := c.TLSCert != ""
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       c.IdleTimeout,
		// Above server.MaxHeaderBytes, so that the handler answers 431
		// with the error body; net/http answers text/plain past this.
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:    func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	ln, err := listen(c, log)
	if err != nil {
		return err
	}
	if c.PprofAddr != "" {
		stopPprof, err := servePprof(c.PprofAddr, log)
		if err != nil {
			return usageError{err}
		}
		defer stopPprof()
	}
	if metrics != nil {
		_, stopMetrics, err := metrics.Serve(c.MetricsAddr, log, hs.Readiness)
		if err != nil {
			return usageError{err}
		}
		defer stopMetrics()
	}
	errc := make(chan error, 1)
	go func() {
		if tls {
			errc <- srv.ServeTLS(ln, c.TLSCert, c.TLSKey)
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	if ready != nil {
		ready(ln.Addr().String())
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Not ready first, serve for --drain-delay, then close (drain.go).
	if err := drainAndShutdown(ctx, c, srv, hs, log); err != nil {
		return err
	}
	log.Info("stopped")
	return nil
}

// listen opens the API's socket (c.listener when set, --listen otherwise)
// with the per-IP connection cap, and logs what is served.
func listen(c *config, log *slog.Logger) (net.Listener, error) {
	ln := c.listener
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", c.Listen); err != nil {
			return nil, err
		}
	}
	capped, err := server.LimitListener(ln, c.MaxConnsPerIP, c.IPv6Prefix, c.trustedProxies(), log)
	if err != nil {
		ln.Close()
		return nil, usageError{fmt.Errorf("--trusted-proxies: %w", err)}
	}
	tls := c.TLSCert != ""
	if !tls && !isLoopback(capped.Addr()) && !strings.HasPrefix(c.SiteURL, "https://") {
		log.Warn("serving plain HTTP on a non-loopback address: put a TLS-terminating proxy in front, or use --tls-cert/--tls-key")
	}
	log.Info("serving", "addr", capped.Addr().String(), "tls", tls, "database", database.Redact(c.DatabaseURL),
		"shared_rate_limits", c.RedisURL != "", "version", binaryVersion())
	return capped, nil
}
