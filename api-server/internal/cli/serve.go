package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
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
// with the listening address once requests are accepted.
func serve(ctx context.Context, c *config, db *database.DB, log *slog.Logger, ready func(addr string)) error {
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
	if err := c.checkDownloads(); err != nil {
		return err
	}
	if c.logs != nil {
		// The log's lines are written together (logBuffer) while serve
		// runs, and all of them before it returns.
		lctx, stopLogs := context.WithCancel(context.WithoutCancel(ctx))
		logsDone := make(chan struct{})
		go func() {
			defer close(logsDone)
			_ = c.logs.Run(lctx)
		}()
		defer func() { stopLogs(); <-logsDone }()
	}
	var metrics *telemetry.Metrics
	var keyOpts keys.AuthenticatorOptions
	if c.MetricsAddr != "" {
		if c.MetricsAddr == c.Listen {
			return usageError{errors.New("--metrics-addr must differ from --listen: metrics are never served on the API's port")}
		}
		metrics = telemetry.NewMetrics()
		metrics.RegisterDB(db.Bun.DB)
		keyOpts.LastUsedHook = metrics.LastUsedWrite
	}
	// Every line JSON (issue #17 point 3): the standard library's log
	// package and OpenTelemetry's own logger go through slog too.
	slog.SetDefault(log)
	otel.SetLogger(logr.FromSlogHandler(log.Handler()))
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.Warn("opentelemetry", "error", err.Error())
	}))
	tracer, stopTracing, err := telemetry.StartTracing(ctx, binaryVersion())
	if err != nil {
		return usageError{err}
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := stopTracing(sctx); err != nil {
			log.Warn("flushing traces", "error", err.Error())
		}
	}()
	if tracer != nil {
		log.Info("tracing on: spans exported with OTLP/HTTP as the OTEL_* variables say")
	}
	ks := keys.NewAuthenticator(db, keyOpts)
	// The last-used writer runs until the server has stopped, then writes
	// what it holds. It takes one connection at a time, outside the
	// admission gate, which keeps one connection of the pool for it
	// (maxInFlight).
	wctx, stopWriter := context.WithCancel(context.WithoutCancel(ctx))
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		_ = ks.Run(wctx)
	}()
	defer func() { stopWriter(); <-writerDone }()
	st, err := store.New(ctx, db)
	if err != nil {
		return migrateHint(err)
	}
	defer st.Close()
	defer watchPrimary(ctx, c, st, log)() // a demoted or fenced primary (primarywatch.go)
	var reads server.Store = st
	if urls := c.replicaURLs(); len(urls) > 0 {
		if !db.IsPostgres() {
			return usageError{errors.New("--database-replica-urls needs a PostgreSQL primary")}
		}
		for i, u := range urls {
			if !isPostgresURL(u) {
				return usageError{fmt.Errorf("--database-replica-urls: URL %d is not postgres://…", i+1)}
			}
			urls[i] = serveURL(u, c.statementTimeout)
		}
		rt := store.NewRouted(ctx, st, store.ReplicaOptions{URLs: urls, MaxLag: c.ReplicaMaxLag,
			Deadline: c.DBDeadline, MaxConns: c.serveConns(urls[0])}, log)
		defer rt.Close()
		reads = rt
		log.Info("snapshot reads go to read replicas when healthy", "replicas", len(urls), "max_lag", c.ReplicaMaxLag.String())
	}

	var lim ratelimit.Limiter
	if c.RedisURL != "" {
		r, err := ratelimit.NewRedis(c.RedisURL, c.RedisNamespace, c.RedisDeadline)
		if err != nil {
			return usageError{err}
		}
		if err := r.CheckMode(ctx); err != nil {
			r.Close()
			return usageError{err}
		}
		if err := r.Ping(ctx); err != nil {
			// Not fatal: requests fail closed (503) until Redis answers.
			log.Warn("rate limit store not reachable yet; API requests get 503 until it is", "error", err.Error())
		}
		metrics.RegisterRedisPool(r)
		lim = r
	} else {
		log.Warn("no --redis-url: rate limits are kept in this process and apply per replica; " +
			"set SVC_REDIS_URL when running more than one replica")
		lim = ratelimit.NewMemory(nil)
	}
	defer lim.Close()

	openapi, err := apiserver.OpenAPIJSON()
	if err != nil {
		return err
	}
	tls := c.TLSCert != ""
	hs, err := server.NewHandlers(server.Config{
		Keys: ks, Store: reads, Limiter: lim, Limits: c.Limits,
		TrustedProxies: c.trustedProxies(), IPv6Prefix: c.IPv6Prefix,
		HSTS:        tls || strings.HasPrefix(c.SiteURL, "https://"),
		OpenAPIJSON: openapi, DownloadsDir: c.DownloadsDir, Logger: log, AccessLog: c.accessLog(),
		DownloadsSiteURL: c.SiteURL,
		MaxInFlight:      c.maxInFlight(db), DatabaseDeadline: c.DBDeadline,
		Metrics: metrics, Tracer: tracer,
	})
	if err != nil {
		return usageError{err}
	}
	h := hs.API
	if c.mount != nil {
		if h, err = c.mount(h); err != nil {
			return err
		}
	}
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
	ln := c.listener
	if ln == nil {
		if ln, err = net.Listen("tcp", c.Listen); err != nil {
			return err
		}
	}
	if lim, err := server.LimitListener(ln, c.MaxConnsPerIP, c.IPv6Prefix, c.trustedProxies(), log); err != nil {
		ln.Close()
		return usageError{fmt.Errorf("--trusted-proxies: %w", err)}
	} else {
		ln = lim
	}
	if !tls && !isLoopback(ln.Addr()) && !strings.HasPrefix(c.SiteURL, "https://") {
		log.Warn("serving plain HTTP on a non-loopback address: put a TLS-terminating proxy in front, or use --tls-cert/--tls-key")
	}
	log.Info("serving", "addr", ln.Addr().String(), "tls", tls, "database", database.Redact(c.DatabaseURL),
		"shared_rate_limits", c.RedisURL != "", "version", binaryVersion())
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

func isLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// servePprof serves net/http/pprof on addr, which must be a loopback
// address: profiles reveal internals and are never for the network.
func servePprof(addr string, log *slog.Logger) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--pprof-addr: %w", err)
	}
	if !isLoopback(ln.Addr()) {
		ln.Close()
		return nil, fmt.Errorf("--pprof-addr %s: want a loopback address", addr)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	log.Warn("serving profiles (net/http/pprof)", "addr", ln.Addr().String())
	return func() { _ = srv.Close() }, nil
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
