package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrNotPrimary reports that the database the store's pool reaches cannot
// act as the primary: it is in recovery (a standby, or an old primary
// demoted) or read-only (fenced). Key lookups there would not see a
// revocation made on the real primary, so the server is not ready (issue
// 36). It wraps the reason.
var ErrNotPrimary = errors.New("the configured primary is not writable")

// CheckPrimary runs primary_check.sql on every idle connection of the
// PostgreSQL pool (one at least, opened if none is idle) and closes each
// connection whose server is in recovery or read-only, so that the pool
// opens new ones: with a multi-host URL and target_session_attrs=read-write
// they go to the host that accepts writes now (a promoted replica), where
// the connections already open would have stayed on a fenced or demoted
// old primary. It returns ErrNotPrimary when, after that, a new connection
// still reaches a server that is not writable (a single-host URL naming a
// fenced or demoted server), and the pool's error when there is no
// connection at all. On SQLite it is Ping.
func (s *Store) CheckPrimary(ctx context.Context) error {
	if s.pool == nil {
		return s.Ping(ctx)
	}
	return s.checkPrimary(ctx, true)
}

// errNothingIdle: checkPrimary without acquire found no idle connection.
var errNothingIdle = errors.New("no idle connection to check")

// Fenced returns the reason the configured primary was last found not
// writable (an ErrNotPrimary: read-only, fenced, or in recovery, demoted),
// or nil once a check found it writable again. The server refuses API
// requests (503) while it is not nil: key lookups there would not see a
// revocation written on the real primary (api-server/README.md, "A fenced
// primary"; issue 40). Checks run every second (WatchPrimary) and with
// every /readyz (CheckPrimary).
func (s *Store) Fenced() error {
	if p := s.fenced.Load(); p != nil {
		return *p
	}
	return nil
}

// Fenced is the primary's Fenced.
func (r *Routed) Fenced() error { return r.primary.Fenced() }

// checkPrimary is checkConns, remembered for Fenced: set by ErrNotPrimary,
// cleared by a check that passes, left alone by any other outcome (the
// database unreachable fails requests by itself).
func (s *Store) checkPrimary(ctx context.Context, acquire bool) error {
	err := s.checkConns(ctx, acquire)
	switch {
	case err == nil:
		s.fenced.Store(nil)
	case errors.Is(err, ErrNotPrimary):
		s.fenced.Store(&err)
	}
	return err
}

// checkConns is CheckPrimary; with acquire false it checks only the
// connections that are idle (none: errNothingIdle), so that a background
// check never makes a request wait for a connection.
func (s *Store) checkConns(ctx context.Context, acquire bool) error {
	conns := s.pool.AcquireAllIdle(ctx)
	if len(conns) == 0 {
		if !acquire {
			return errNothingIdle
		}
		c, err := s.pool.Acquire(ctx)
		if err != nil {
			return err
		}
		conns = append(conns, c)
	}
	// All at once, each released as soon as checked: requests that need a
	// connection meanwhile wait one round trip at most, not one per
	// connection.
	errs := make([]error, len(conns))
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Go(func() { errs[i] = checkConn(ctx, c) })
	}
	wg.Wait()
	var why error
	for _, err := range errs {
		if err != nil && (why == nil || errors.Is(err, ErrNotPrimary)) {
			why = err
		}
	}
	if why == nil || !errors.Is(why, ErrNotPrimary) {
		return why
	}
	// Some connections were on a server that is not writable, and are
	// closed: does a new one reach a writable server?
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("%w (%w); no other host: %w", ErrNotPrimary, why, err)
	}
	return checkConn(ctx, c)
}

// checkConn runs the check on c and releases it, closed when its server is
// not writable or the check failed.
func checkConn(ctx context.Context, c *pgxpool.Conn) error {
	var inRecovery, readOnly bool
	err := c.QueryRow(ctx, qPrimaryCheck.pg).Scan(&inRecovery, &readOnly)
	switch {
	case err != nil:
	case inRecovery:
		err = fmt.Errorf("%w: in recovery (a standby)", ErrNotPrimary)
	case readOnly:
		err = fmt.Errorf("%w: read-only (transaction_read_only on)", ErrNotPrimary)
	}
	if err != nil {
		// Closed, the pool destroys it on release and opens another.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		_ = c.Conn().Close(cctx)
		cancel()
	}
	c.Release()
	return err
}

// WatchPrimary runs CheckPrimary on the pool's idle connections (none
// taken from a request) every interval until ctx ends, each bounded by
// deadline, and logs when the primary stops or starts being
// writable: the connections to a server demoted or fenced under a running
// process are closed within about interval even when nothing asks /readyz.
func (s *Store) WatchPrimary(ctx context.Context, every, deadline time.Duration, log *slog.Logger) {
	if s.pool == nil {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	was := true
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cctx, cancel := context.WithTimeout(ctx, deadline)
		err := s.checkPrimary(cctx, false) // the idle connections only
		cancel()
		if errors.Is(err, errNothingIdle) {
			continue // all busy: checked when some are idle
		}
		notPrimary := errors.Is(err, ErrNotPrimary)
		switch {
		case notPrimary && was:
			log.Warn("the primary is not writable: its connections closed, /readyz not ready until a host of --database-url accepts writes", "error", err.Error())
		case !notPrimary && !was:
			log.Info("the primary is writable again")
		}
		was = !notPrimary
	}
}

// Ready is the primary's Ready: the replicas are optional (reads fall back
// to the primary).
func (r *Routed) Ready(ctx context.Context) error { return r.primary.Ready(ctx) }
