package cli

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// logFlushEvery is how long a log line may wait in a logBuffer.
const logFlushEvery = 100 * time.Millisecond

// logBufferMax is what a logBuffer holds at most before it writes at once.
const logBufferMax = 64 << 10

// logBuffer gathers the log's lines (one Write per record, as slog's
// handlers write them) and writes them to w in one write every
// logFlushEvery, instead of one write per request: the access log was ~8 %
// of svc-api's CPU under load, most of it the write system call. The bytes
// written are the same, in the same order.
//
// It buffers only while Run runs; before and after, every Write goes
// straight to w. Records at warn or above are written at once (the
// handler of newLogger flushes after them), and Run writes what is left
// when its context ends.
type logBuffer struct {
	mu      sync.Mutex
	w       io.Writer
	buf     []byte
	running bool
	every   time.Duration // logFlushEvery; tests change it
}

func newLogBuffer(w io.Writer) *logBuffer { return &logBuffer{w: w, every: logFlushEvery} }

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.running {
		if len(b.buf) > 0 {
			if err := b.flushLocked(); err != nil {
				return 0, err
			}
		}
		return b.w.Write(p)
	}
	b.buf = append(b.buf, p...)
	if len(b.buf) >= logBufferMax {
		if err := b.flushLocked(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes what the buffer holds.
func (b *logBuffer) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flushLocked()
}

func (b *logBuffer) flushLocked() error {
	if len(b.buf) == 0 {
		return nil
	}
	_, err := b.w.Write(b.buf)
	if cap(b.buf) > 4*logBufferMax {
		b.buf = nil
	} else {
		b.buf = b.buf[:0]
	}
	return err
}

// Run buffers the writes and flushes them every logFlushEvery until ctx is
// done, then flushes what is left; writes go straight through again after
// it returns.
func (b *logBuffer) Run(ctx context.Context) error {
	b.mu.Lock()
	b.running = true
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		b.running = false
		_ = b.flushLocked()
		b.mu.Unlock()
	}()
	t := time.NewTicker(b.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			_ = b.Flush()
		}
	}
}

// flushingHandler flushes its logBuffer after each record at warn or
// above, so that warnings and errors are never held back.
type flushingHandler struct {
	slog.Handler
	b *logBuffer
}

func (h flushingHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		if ferr := h.b.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

func (h flushingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return flushingHandler{h.Handler.WithAttrs(attrs), h.b}
}

func (h flushingHandler) WithGroup(name string) slog.Handler {
	return flushingHandler{h.Handler.WithGroup(name), h.b}
}
