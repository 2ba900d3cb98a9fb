package cli

import (
	"context"
	"log/slog"
	"time"

	"github.com/adsnap/svc/api-server/internal/store"
)

// primaryCheckEvery is how often serve checks that the PostgreSQL primary
// is writable (store.WatchPrimary).
const primaryCheckEvery = time.Second

// watchPrimary runs st.WatchPrimary until the returned stop is called:
// connections to a primary demoted or fenced under the running process are
// closed (and, with a multi-host URL, reopened on the host that accepts
// writes) within about a second (issue 36).
func watchPrimary(ctx context.Context, c *config, st *store.Store, log *slog.Logger) (stop func()) {
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		st.WatchPrimary(wctx, primaryCheckEvery, c.DBDeadline, log)
	}()
	return func() { cancel(); <-done }
}
