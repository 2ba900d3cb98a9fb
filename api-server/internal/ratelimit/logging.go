package ratelimit

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// SetLogger sends go-redis's own log lines (pool and dial failures) to log
// at warn level, as JSON like every other line, instead of go-redis's
// plain-text default, and at most one a second (with the number of lines
// held back): a Redis outage must not flood the logs. go-redis has one
// logger per process.
func SetLogger(log *slog.Logger) {
	redis.SetLogger(newSlogAdapter(log, time.Now))
}

// slogAdapter is go-redis's logger interface over slog, at most one line a
// second by now.
type slogAdapter struct {
	log  *slog.Logger
	now  func() time.Time
	mu   sync.Mutex
	last time.Time
	held int
}

func newSlogAdapter(log *slog.Logger, now func() time.Time) *slogAdapter {
	return &slogAdapter{log: log, now: now}
}

// Printf implements go-redis's internal.Logging.
func (a *slogAdapter) Printf(ctx context.Context, format string, v ...any) {
	a.mu.Lock()
	now := a.now()
	if now.Sub(a.last) < time.Second {
		a.held++
		a.mu.Unlock()
		return
	}
	held := a.held
	a.last, a.held = now, 0
	a.mu.Unlock()
	a.log.WarnContext(ctx, "redis client", "detail", fmt.Sprintf(format, v...), "held_back", held)
}
