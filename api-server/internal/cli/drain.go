package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/spf13/pflag"
)

// defaultDrainDelay is --drain-delay's default: longer than the shipped
// HAProxy configuration takes to take a replica out (fall 2 × inter 1 s,
// then fastinter 250 ms checks), and what a Kubernetes endpoint update
// takes once the preStop sleep (5 s) is over, and short enough that the
// shipped stop timeouts (45 s: terminationGracePeriodSeconds,
// stop_grace_period, TimeoutStopSec) still leave the 30 s for the requests
// in flight.
const defaultDrainDelay = 5 * time.Second

// shutdownGrace bounds the wait for the requests in flight once the
// listener is closed.
const shutdownGrace = 30 * time.Second

// addDrainFlag adds --drain-delay (serve only: the demo stops at once).
func addDrainFlag(fs *pflag.FlagSet, c *config, e *envErrors) {
	fs.DurationVar(&c.DrainDelay, "drain-delay", e.duration("SVC_DRAIN_DELAY", defaultDrainDelay),
		"on SIGTERM or SIGINT, how long /readyz answers 503 while the API keeps serving, so that the load balancer takes this replica out "+
			"before the listener closes; then the requests in flight finish (30 s at most). Set it above the load balancer's time to "+
			"take a replica out; 0: close at once (env SVC_DRAIN_DELAY)")
}

// drainer is the part of server.Handlers that drain needs.
type drainer interface{ Drain() }

// drainAndShutdown stops srv gracefully once the process is told to stop
// (issue 36): /readyz turns not ready at once (hs.Drain), the API keeps
// serving for c.DrainDelay, keep-alive connections are closed after their
// next answer (a client or load balancer opens a new one, to another
// replica once this one is out), then the listener closes and the requests
// in flight finish, shutdownGrace at most. It returns Shutdown's error.
func drainAndShutdown(ctx context.Context, c *config, srv *http.Server, hs drainer, log *slog.Logger) error {
	if c.DrainDelay > 0 {
		hs.Drain()
		srv.SetKeepAlivesEnabled(false)
		log.Info("draining: /readyz answers 503, requests are still served", "drain_delay", c.DrainDelay.String())
		time.Sleep(c.DrainDelay)
	}
	log.Info("shutting down: finishing requests in flight")
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}
