package cli

import (
	"bytes"
	"context"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for Run's goroutine and the test's,
// counting its writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	n  int
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	return s.b.Write(p)
}

// String is what was written, without the lines' times (the two loggers
// of a pair read the clock apart).
func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return lineTime.ReplaceAllString(s.b.String(), "")
}

var lineTime = regexp.MustCompile(`"time":"[^"]*",`)

func (s *syncBuffer) writes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// runLogs starts logs.Run and waits until it buffers; stop ends it.
func runLogs(t *testing.T, logs *logBuffer) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = logs.Run(ctx) }()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		logs.mu.Lock()
		running := logs.running
		logs.mu.Unlock()
		if running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Run did not start buffering")
		}
	}
	return func() { cancel(); <-done }
}

// pair logs each line to the buffered logger and to an unbuffered one, so
// that the bytes can be compared.
type pair struct{ buffered, plain *slog.Logger }

func (p pair) log(level slog.Level, msg string, n int) {
	p.buffered.Log(context.Background(), level, msg, "n", n)
	p.plain.Log(context.Background(), level, msg, "n", n)
}

func newPair(t *testing.T, out, plain *syncBuffer) (pair, *logBuffer) {
	t.Helper()
	log, logs, err := newBufferedLogger(out, "info")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := newLogger(plain, "info")
	if err != nil {
		t.Fatal(err)
	}
	return pair{log, ref}, logs
}

// TestLogBuffer: while Run runs, info lines are held; a warning is written
// at once with what was held before it; Run's end writes the rest; before
// and after Run lines go straight through. The bytes are the unbuffered
// logger's.
func TestLogBuffer(t *testing.T) {
	var out, plain syncBuffer
	p, logs := newPair(t, &out, &plain)
	logs.every = time.Hour // no tick during the test
	p.log(slog.LevelInfo, "before run", 0)
	if out.writes() != 1 {
		t.Fatalf("before Run: %d writes, want 1 (straight through)", out.writes())
	}
	stop := runLogs(t, logs)
	for i := 1; i <= 3; i++ {
		p.log(slog.LevelInfo, "request", i)
	}
	if out.writes() != 1 {
		t.Fatalf("info lines written while Run runs: %d writes", out.writes())
	}
	p.log(slog.LevelWarn, "trouble", 4)
	if got, want := out.String(), plain.String(); got != want || out.writes() != 2 {
		t.Fatalf("after a warning (%d writes, want 2):\n got %q\nwant %q", out.writes(), got, want)
	}
	p.log(slog.LevelInfo, "held", 5)
	p.log(slog.LevelError, "failure", 6)
	p.log(slog.LevelInfo, "at the end", 7)
	if got, want := out.String(), plain.String(); got == want || !strings.HasPrefix(want, got) || !strings.Contains(got, `"failure"`) {
		t.Fatalf("after an error, before the end:\n got %q\nwant a prefix of %q ending before the last line", got, want)
	}
	stop()
	if got, want := out.String(), plain.String(); got != want {
		t.Fatalf("after Run:\n got %q\nwant %q", got, want)
	}
	n := out.writes()
	p.log(slog.LevelInfo, "after run", 8)
	if out.writes() != n+1 || out.String() != plain.String() {
		t.Fatal("after Run, a line is not written straight through")
	}
	if c := strings.Count(out.String(), "\n"); c != 9 {
		t.Fatalf("%d lines, want 9", c)
	}
}

// TestLogBufferTicks: a held line is written by Run's ticker.
func TestLogBufferTicks(t *testing.T) {
	var out, plain syncBuffer
	p, logs := newPair(t, &out, &plain)
	logs.every = 10 * time.Millisecond
	stop := runLogs(t, logs)
	defer stop()
	p.log(slog.LevelInfo, "request", 1)
	for deadline := time.Now().Add(5 * time.Second); out.String() != plain.String(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the line was not written by the ticker:\n got %q\nwant %q", out.String(), plain.String())
		}
	}
}

// TestLogBufferFull: a buffer that reaches logBufferMax is written at once.
func TestLogBufferFull(t *testing.T) {
	var out syncBuffer
	b := newLogBuffer(&out)
	b.running = true
	line := []byte(strings.Repeat("x", 1023) + "\n")
	for range logBufferMax / len(line) {
		if _, err := b.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	if out.writes() != 1 || out.b.Len() != logBufferMax {
		t.Fatalf("%d writes of %d bytes, want 1 of %d", out.writes(), out.b.Len(), logBufferMax)
	}
}
