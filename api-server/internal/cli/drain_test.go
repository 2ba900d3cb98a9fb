package cli

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDrainDelay (issue 36): --drain-delay and SVC_DRAIN_DELAY are
// documented, a negative delay is a usage error, and on the signal (the
// context's end) /readyz answers 503 at once while the API keeps serving
// for the delay; then the listener closes and serve exits 0.
func TestDrainDelay(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Run(t.Context(), []string{"serve", "--help"}, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d %s", code, errOut.String())
	}
	if help := out.String(); !strings.Contains(help, "--drain-delay duration") || !strings.Contains(help, "SVC_DRAIN_DELAY") || !strings.Contains(help, "(default 5s)") {
		t.Errorf("serve --help does not document --drain-delay and its default:\n%s", help)
	}
	db := "sqlite:" + filepath.Join(t.TempDir(), "x.db")
	if code := Run(t.Context(), []string{"migrate", "--database-url", db}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("migrate: %d %s", code, errOut.String())
	}
	errOut.Reset()
	if code := Run(t.Context(), []string{"serve", "--database-url", db, "--listen", "127.0.0.1:0", "--drain-delay", "-1s"}, strings.NewReader(""), &out, &errOut); code != exitUsage ||
		!strings.Contains(errOut.String(), "--drain-delay must be 0 or more") {
		t.Errorf("--drain-delay -1s: exit %d, %s", code, errOut.String())
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	const delay = 1500 * time.Millisecond
	t.Setenv("SVC_DRAIN_DELAY", delay.String())
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"serve", "--database-url", db, "--listen", addr}, strings.NewReader(""), io.Discard, io.Discard)
	}()
	base := "http://" + addr
	get := func(path string) (int, string, error) {
		c := &http.Client{Timeout: time.Second}
		resp, err := c.Get(base + path)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), nil
	}
	up := false
	for deadline := time.Now().Add(20 * time.Second); !up && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		code, _, err := get("/readyz")
		up = err == nil && code == http.StatusOK
	}
	if !up {
		t.Fatal("serve not ready within 20 s")
	}

	stop()
	signalled := time.Now()
	var readyCode int
	var readyBody string
	for time.Since(signalled) < delay/2 {
		if readyCode, readyBody, err = get("/readyz"); err == nil && readyCode == http.StatusServiceUnavailable {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if readyCode != http.StatusServiceUnavailable || !strings.Contains(readyBody, "shutting down") {
		t.Fatalf("/readyz %s after the signal: %d %s %v, want 503 at once", time.Since(signalled).Round(time.Millisecond), readyCode, readyBody, err)
	}
	// Still serving during the drain.
	if code, _, err := get("/healthz"); err != nil || code != http.StatusOK || time.Since(signalled) >= delay {
		t.Fatalf("/healthz during the drain (%s after the signal): %d %v, want 200", time.Since(signalled).Round(time.Millisecond), code, err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("serve exit %d after the drain", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve still running 20 s after the signal")
	}
	if took := time.Since(signalled); took < delay {
		t.Errorf("serve exited %s after the signal, want the drain delay %s first", took.Round(time.Millisecond), delay)
	}
	if _, _, err := get("/healthz"); err == nil {
		t.Error("still accepting connections after serve returned")
	}
}
