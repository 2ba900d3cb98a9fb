package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/gin-gonic/gin"
)

// readyTTL is how old a readiness check may be when /readyz answers from it.
const readyTTL = time.Second

// readyLimit is the bucket /readyz takes a request from: a real limiter
// operation (the script, the write), not only a ping, with a quota no probe
// rate reaches.
var readyLimit = ratelimit.PerMinute("ready", 1_000_000)

// prober is a limiter that checks itself with real requests on every part
// of its store (ratelimit.Redis: every master of a Cluster).
type prober interface {
	Probe(ctx context.Context) error
}

// readiness is the last check of the dependencies. One caller at a time
// refreshes it, the others wait for that check instead of making their own.
type readiness struct {
	mu sync.Mutex
	at time.Time
	readyResult
}

type readyResult struct {
	ok                bool
	database, limiter string
	// limiterNodes: each master of a Redis Cluster limiter (partial), for
	// the detail.
	limiterNodes []ratelimit.NodeStatus
}

func (r *readiness) get(ctx context.Context, s *Server) readyResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	if now := s.now(); !r.at.IsZero() && now.Sub(r.at) < readyTTL {
		return r.readyResult
	}
	// The check is bounded by its own deadlines and not by the caller's
	// context: a probe that leaves must not record its dependencies as down.
	ctx = context.WithoutCancel(ctx)
	res := readyResult{ok: true, database: "ok", limiter: "ok"}
	dctx, cancel := context.WithTimeout(ctx, s.dbWait)
	if err := s.checkDatabase(dctx); err != nil { // a writable primary (primaryready.go)
		res.ok, res.database = false, "unavailable"
	}
	cancel()
	var lr [1]ratelimit.Result
	var lerr error
	if s.partial != nil {
		// A Redis Cluster: ready while some master serves (limiternodes.go).
		res.limiter, res.limiterNodes, lerr = s.probeNodes(ctx)
	} else if p, ok := s.limiter.(prober); ok {
		lerr = p.Probe(ctx)
	} else {
		lerr = s.limiter.Allow(ctx, []ratelimit.Check{{Limit: readyLimit, Key: "ready"}}, lr[:])
	}
	if lerr != nil {
		res.ok, res.limiter = false, "unavailable"
	}
	r.readyResult, r.at = res, s.now()
	return res
}

// onceASecond logs a failure at most once a second per message, with the
// number of times it happened since the last line: an outage of a
// dependency must not become an outage of the logs (issue #22 point 11).
type onceASecond struct {
	mu   sync.Mutex
	last map[string]*failureLine
}

type failureLine struct {
	at    time.Time // when the last line was written
	seen  time.Time // when the failure last happened
	count int       // failures since the last line
}

// note records one failure of kind msg, and writes a line when the last
// line for msg is a second old or more.
func (o *onceASecond) note(ctx context.Context, log *slog.Logger, msg string, err error, now time.Time) {
	o.mu.Lock()
	if o.last == nil {
		o.last = make(map[string]*failureLine)
	}
	f := o.last[msg]
	if f == nil {
		f = &failureLine{}
		o.last[msg] = f
	}
	f.count++
	f.seen = now
	if !f.at.IsZero() && now.Sub(f.at) < time.Second {
		o.mu.Unlock()
		return
	}
	n := f.count
	f.at, f.count = now, 0
	o.mu.Unlock()
	log.LogAttrs(ctx, slog.LevelError, msg, slog.String("error", err.Error()), slog.Int("count", n),
		slog.String("note", "count is the number of requests refused with this failure since the previous line (at most one line a second)"))
}

// recent reports whether a failure of kind msg happened less than a second
// before now.
func (o *onceASecond) recent(msg string, now time.Time) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	f := o.last[msg]
	return f != nil && now.Sub(f.seen) < time.Second
}

func (s *Server) healthz(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"status": "ok"})
}

// readyz answers from a check at most readyTTL old (readiness), so that a
// flood of probes costs the dependencies one check a second. On the public
// port it says ready or not for each dependency and nothing more (no URL,
// host, user, lag or reason: issue 30); the detail is the operators'
// (readyDetail, on the metrics listener, and the log).
func (s *Server) readyz(c *gin.Context) {
	code, body := s.readiness(c.Request.Context(), false)
	if code != http.StatusOK {
		c.Header("Retry-After", "1")
	}
	c.JSON(code, body)
}

// readyDetail is readyz with each read replica's redacted name, lag and
// reason: for the metrics listener (Handlers.Readiness), never the API's port.
func (s *Server) readyDetail(w http.ResponseWriter, r *http.Request) {
	code, body := s.readiness(r.Context(), true)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(body)
}

// readiness is the answer of readyz (detail false) and readyDetail.
func (s *Server) readiness(ctx context.Context, detail bool) (int, gin.H) {
	if s.isDraining() { // stopping: out of the load balancer first (drain.go)
		return http.StatusServiceUnavailable, gin.H{"statusCode": http.StatusServiceUnavailable, "message": drainingMessage}
	}
	r := s.ready.get(ctx, s)
	checks := gin.H{"database": r.database, "rateLimitStore": r.limiter}
	if detail && r.limiterNodes != nil {
		checks["rateLimitNodes"] = r.limiterNodes // which masters serve
	}
	if rs := s.replicas; rs != nil {
		// Reads fall back to the primary, so a replica that is down or
		// lags does not make the server unready.
		st := rs.Status()
		if detail {
			checks["databaseReplicas"] = st
		} else {
			each := make([]string, len(st))
			for i, r := range st {
				each[i] = "ok"
				if !r.Healthy {
					each[i] = "unavailable"
				}
			}
			checks["databaseReplicas"] = each
		}
	}
	if !r.ok {
		return http.StatusServiceUnavailable, gin.H{"statusCode": http.StatusServiceUnavailable, "message": "not ready", "checks": checks}
	}
	return http.StatusOK, gin.H{"status": "ready", "checks": checks}
}
