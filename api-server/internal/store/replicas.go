package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/adsnap/svc/keys-admin/database"
	"github.com/uptrace/bun"
)

// Routed sends the snapshot reads (the *Page methods: accounts, campaigns,
// insights and their meta and counts) to PostgreSQL read replicas, in turn,
// and everything else to the primary: the key-state epoch of a request's
// key (a Prelude) is read on the primary, so a revocation is seen by the
// next request. A replica is skipped while it is down, is not in
// recovery, or lags more than MaxLag behind its primary, checked every
// CheckEvery; a read that fails on a replica (a replica that went down
// between two checks, a query cancelled by recovery) is read again on the
// primary, and the replica is skipped until its next good check.
//
// Each replica is a pool of its own (database.Connect: a pgx pool, like
// the primary), not bun's WithReadOnlyReplica: the store runs
// prepared statements and raw pgx queries, not bun's query builder, and
// bun's replicas have no lag bound or health check.
type Routed struct {
	primary  *Store
	replicas []*replica
	opt      ReplicaOptions
	log      *slog.Logger
	next     atomic.Uint32
	behind   atomic.Uint64 // changes pages a replica left to the primary (changes.go)
	stop     context.CancelFunc
	done     chan struct{}
}

// ReplicaOptions configures Routed.
type ReplicaOptions struct {
	URLs       []string      // postgres:// URLs of the replicas
	MaxLag     time.Duration // a replica further behind is skipped (0: 10 s)
	CheckEvery time.Duration // health and lag check interval (0: 1 s)
	Deadline   time.Duration // bound of a check (0: 1 s)
	MaxConns   int           // pool size of each replica (0: database.Connect's)
}

type replica struct {
	url  string // with the password; only Redact(url) is ever shown
	name string // Redact(url)

	db *database.DB // only the check goroutine (and Close, after it) touches db and logged
	// logged is when the replica's lag was last logged.
	logged time.Time
	st     atomic.Pointer[Store]
	bd     atomic.Pointer[bun.DB] // db, for DBs

	mu  sync.Mutex // guards lag and err
	lag time.Duration
	err string // why it is skipped, "" when in use

	healthy atomic.Bool
}

// ReplicaStatus is one replica's state, for /readyz's detail and logs.
type ReplicaStatus struct {
	Name       string  `json:"name"`
	Healthy    bool    `json:"healthy"`
	LagSeconds float64 `json:"lagSeconds"`
	Reason     string  `json:"reason,omitempty"`
}

// lagLogEvery is how often a replica's lag is logged when its state does
// not change (a change is logged at once).
const lagLogEvery = time.Minute

// NewRouted returns a store that reads snapshots from opt.URLs when they
// are healthy and from primary otherwise, and starts checking the replicas
// (Close stops it). A replica that does not answer at start is not an
// error: it is skipped until it does.
func NewRouted(ctx context.Context, primary *Store, opt ReplicaOptions, log *slog.Logger) *Routed {
	if opt.MaxLag <= 0 {
		opt.MaxLag = 10 * time.Second
	}
	if opt.CheckEvery <= 0 {
		opt.CheckEvery = time.Second
	}
	if opt.Deadline <= 0 {
		opt.Deadline = time.Second
	}
	r := &Routed{primary: primary, opt: opt, log: log, done: make(chan struct{})}
	for _, u := range opt.URLs {
		r.replicas = append(r.replicas, &replica{url: u, name: database.Redact(u), err: "not checked yet"})
	}
	ctx, r.stop = context.WithCancel(context.WithoutCancel(ctx))
	r.checkAll(ctx)
	go func() {
		defer close(r.done)
		t := time.NewTicker(opt.CheckEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				r.checkAll(ctx)
			}
		}
	}()
	return r
}

func (r *Routed) checkAll(ctx context.Context) {
	var wg sync.WaitGroup
	for _, rp := range r.replicas {
		wg.Go(func() { r.check(ctx, rp) })
	}
	wg.Wait()
}

// check connects to the replica if needed and measures its lag.
func (r *Routed) check(ctx context.Context, rp *replica) {
	ctx, cancel := context.WithTimeout(ctx, r.opt.Deadline)
	defer cancel()
	was := rp.healthy.Load()
	var why string
	var lag time.Duration
	if rp.db == nil {
		db, err := database.Connect(ctx, rp.url, database.Options{MaxOpenConns: r.opt.MaxConns})
		if err == nil {
			var st *Store
			if st, err = New(ctx, db); err != nil {
				db.Close()
			} else {
				rp.db = db
				rp.bd.Store(db.Bun)
				rp.st.Store(st)
			}
		}
		if err != nil {
			why = "unreachable"
		}
	}
	if rp.db != nil {
		var inRecovery bool
		var secs float64
		if err := rp.db.Bun.QueryRowContext(ctx, qReplicaLag.pg).Scan(&inRecovery, &secs); err != nil {
			why = "unreachable"
		} else {
			lag = time.Duration(secs * float64(time.Second))
			switch {
			case !inRecovery:
				why = "not a replica (not in recovery)"
			case lag > r.opt.MaxLag:
				why = fmt.Sprintf("lags %s, more than %s", lag.Round(time.Millisecond), r.opt.MaxLag)
			}
		}
	}
	rp.mu.Lock()
	rp.lag, rp.err = lag, why
	rp.mu.Unlock()
	rp.healthy.Store(why == "")
	now := time.Now()
	switch {
	case was == (why == "") && now.Sub(rp.logged) >= lagLogEvery:
		// No change: the lag still goes to the log once a minute.
		r.log.Info("read replica lag", "replica", rp.name, "healthy", why == "", "lag_seconds", lag.Seconds(), "reason", why)
		rp.logged = now
	case was && why != "":
		r.log.Warn("read replica skipped: snapshot reads go to the primary", "replica", rp.name, "reason", why, "lag_seconds", lag.Seconds())
		rp.logged = now
	case !was && why == "":
		r.log.Info("read replica in use", "replica", rp.name, "lag_seconds", lag.Seconds())
		rp.logged = now
	}
}

// markDown skips a replica after a failed read, until its next good check.
func (r *Routed) markDown(rp *replica, err error) {
	if rp.healthy.CompareAndSwap(true, false) {
		rp.mu.Lock()
		rp.err = "a read failed"
		rp.mu.Unlock()
		r.log.Warn("read replica skipped after a failed read: snapshot reads go to the primary",
			"replica", rp.name, "error", err.Error())
	}
}

// pick returns a healthy replica's store, in turn, or nil.
func (r *Routed) pick() (*replica, *Store) {
	n := len(r.replicas)
	if n == 0 {
		return nil, nil
	}
	start := int(r.next.Add(1))
	for i := range n {
		rp := r.replicas[(start+i)%n]
		if st := rp.st.Load(); st != nil && rp.healthy.Load() {
			return rp, st
		}
	}
	return nil, nil
}

// routed runs read on a healthy replica, and on the primary when there is
// none or the replica's read fails for any reason but the caller's context.
// pre's epoch is always read on the primary: by the meta statement alone
// before the read when the read goes to a replica (runPrelude), by the
// read's own statement otherwise.
func routed[T any](ctx context.Context, r *Routed, orgID string, pre Prelude, read func(*Store, Prelude) (Meta, T, error)) (Meta, T, error) {
	if rp, st := r.pick(); st != nil {
		if pre != nil {
			if err := r.primary.runPrelude(ctx, orgID, pre); err != nil {
				var zero T
				return Meta{}, zero, err
			}
		}
		m, v, err := read(st, nil)
		if err == nil || ctx.Err() != nil {
			return m, v, err
		}
		r.markDown(rp, err)
		return read(r.primary, nil)
	}
	return read(r.primary, pre)
}

// AccountsPage reads on a replica when one is healthy.
func (r *Routed) AccountsPage(ctx context.Context, orgID string, p ListParams, pre Prelude) (Meta, *AccountPage, error) {
	return routed(ctx, r, orgID, pre, func(s *Store, pre Prelude) (Meta, *AccountPage, error) { return s.AccountsPage(ctx, orgID, p, pre) })
}

// CampaignsPage reads on a replica when one is healthy.
func (r *Routed) CampaignsPage(ctx context.Context, orgID string, p ListParams, pre Prelude) (Meta, *CampaignPage, error) {
	return routed(ctx, r, orgID, pre, func(s *Store, pre Prelude) (Meta, *CampaignPage, error) { return s.CampaignsPage(ctx, orgID, p, pre) })
}

// InsightsPage reads on a replica when one is healthy.
func (r *Routed) InsightsPage(ctx context.Context, orgID string, p ListParams, pre Prelude) (Meta, *InsightPage, error) {
	return routed(ctx, r, orgID, pre, func(s *Store, pre Prelude) (Meta, *InsightPage, error) { return s.InsightsPage(ctx, orgID, p, pre) })
}

// Ping reports whether the primary answers: replicas are optional, reads
// fall back to the primary.
func (r *Routed) Ping(ctx context.Context) error { return r.primary.Ping(ctx) }

// Status returns each replica's state, in the order of the URLs.
func (r *Routed) Status() []ReplicaStatus {
	out := make([]ReplicaStatus, 0, len(r.replicas))
	for _, rp := range r.replicas {
		rp.mu.Lock()
		out = append(out, ReplicaStatus{Name: rp.name, Healthy: rp.healthy.Load(), LagSeconds: rp.lag.Seconds(), Reason: rp.err})
		rp.mu.Unlock()
	}
	return out
}

// DBs returns the replicas' pools opened so far (for instrumentation such
// as metrics collectors).
func (r *Routed) DBs() []*bun.DB {
	var out []*bun.DB
	for _, rp := range r.replicas {
		if db := rp.bd.Load(); db != nil {
			out = append(out, db)
		}
	}
	return out
}

// Primary returns the primary's store.
func (r *Routed) Primary() *Store { return r.primary }

// errClosed is never returned to callers; Close is idempotent.
var errClosed = errors.New("routed store closed")

// Close stops the checks and closes the replicas' pools (not the primary).
func (r *Routed) Close() error {
	r.stop()
	<-r.done
	for _, rp := range r.replicas {
		rp.healthy.Store(false)
		if st := rp.st.Swap(nil); st != nil {
			st.Close()
		}
		if rp.db != nil {
			rp.bd.Store(nil)
			rp.db.Close()
			rp.db = nil
		}
		rp.mu.Lock()
		rp.err = errClosed.Error()
		rp.mu.Unlock()
	}
	return nil
}
