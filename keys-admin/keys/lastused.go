package keys

import (
	"context"
	"sync"
	"time"

	"github.com/uptrace/bun"
)

// touchInterval is the least time between two last_used_at writes of a key.
const touchInterval = time.Minute

// queueLen bounds the keys waiting for their last-used write.
const queueLen = 256

// lastUsedWriter writes last_used_at off the request path. mark never
// blocks and costs O(1): a key whose last_used_at (read by the lookup that
// calls mark) is less than touchInterval old is skipped without a lock,
// and one already waiting is not queued twice (pending holds at most
// queueLen keys: those in the queue). The UPDATE's own condition keeps the
// writes to once per interval per key across processes and replicas.
type lastUsedWriter struct {
	db   *bun.DB
	hook func(error) // AuthenticatorOptions.LastUsedHook; nil if none
	ch   chan touchReq

	mu      sync.Mutex
	pending map[string]struct{}
}

type touchReq struct {
	keyID string
	at    time.Time
}

func newLastUsedWriter(db *bun.DB, hook func(error)) *lastUsedWriter {
	return &lastUsedWriter{db: db, hook: hook, ch: make(chan touchReq, queueLen), pending: make(map[string]struct{}, queueLen)}
}

// mark queues keyID's last-used time when lastUsed (zero: never) is
// touchInterval old or more. It returns the last-used time to remember
// for the key: now when its write is queued (by this call or an earlier
// one), lastUsed otherwise (a later request marks it again).
func (w *lastUsedWriter) mark(keyID string, lastUsed, now time.Time) time.Time {
	if !lastUsed.IsZero() && now.Sub(lastUsed) < touchInterval {
		return lastUsed
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.pending[keyID]; ok {
		return now
	}
	select {
	case w.ch <- touchReq{keyID, now}:
		w.pending[keyID] = struct{}{}
		return now
	default: // the writer is behind (or not running); a later request marks it again
		return lastUsed
	}
}

// Run writes the queued last-used times, one at a time (it holds at most
// one database connection, see the api-server's admission gate), until ctx
// is done; it then writes what is still queued, for at most a few seconds,
// and returns nil. Errors are not returned: last_used_at is informational
// and a failed write is tried again by a later request (LastUsedHook sees
// each write's error).
func (a *Authenticator) Run(ctx context.Context) error {
	w := a.w
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Second)
			defer cancel()
			for {
				select {
				case req := <-w.ch:
					if fctx.Err() == nil {
						w.write(fctx, req)
					} else {
						w.done(req.keyID)
					}
				default:
					return nil
				}
			}
		case req := <-w.ch:
			wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			w.write(wctx, req)
			cancel()
		}
	}
}

func (w *lastUsedWriter) write(ctx context.Context, req touchReq) {
	_, err := w.db.NewUpdate().Model((*keyRow)(nil)).
		Set("last_used_at = ?", req.at).
		Where("id = ?", req.keyID).
		Where("last_used_at IS NULL OR last_used_at <= ?", req.at.Add(-touchInterval)).
		Exec(ctx)
	w.done(req.keyID)
	if w.hook != nil {
		w.hook(err)
	}
}

// done lets the key be queued again: its row now says when it was used
// (or the write failed, and a later request tries again).
func (w *lastUsedWriter) done(keyID string) {
	w.mu.Lock()
	delete(w.pending, keyID)
	w.mu.Unlock()
}
