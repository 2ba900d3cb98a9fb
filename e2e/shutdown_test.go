package e2e

import (
	"fmt"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/adsnap/svc/e2e/internal/harness"
)

// testGracefulShutdown: a request in flight when SIGTERM arrives still gets
// its answer, new connections are refused at once, and the process exits 0.
// A dedicated replica reaches PostgreSQL through a proxy that slows every
// answer down, so that the request is still running when the signal comes.
func testGracefulShutdown(t *testing.T, e *env) {
	proxy, err := harness.NewProxy(hostPort(e.dbURL))
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	s, err := harness.StartServer(e.bin.API, port, []string{
		"SVC_DATABASE_URL=" + withHost(e.dbURL, proxy.Addr()),
		"SVC_REDIS_URL=redis://" + e.redis + "/0",
		"SVC_REDIS_NAMESPACE=e2e" + harness.RandomHex(4),
		// The slowed link makes a key lookup take seconds: the request must
		// be slow, not refused by the database deadline.
		"SVC_DATABASE_DEADLINE=30s",
		fmt.Sprintf("SVC_LISTEN_ADDR=127.0.0.1:%d", port),
	}, "serve")
	if err != nil {
		t.Fatal(err)
	}
	e.rec.logs(s.Logs)
	defer s.Stop() //nolint:errcheck
	client := harness.ClientFrom("127.0.0.41")
	url := s.URL + "/api/v1/developer/accounts"
	key := e.keys["alpha_aci"]
	if resp, _ := e.get(t, client, url, key); resp.StatusCode != http.StatusOK {
		t.Fatalf("warm-up: %d", resp.StatusCode)
	}

	proxy.SetDelay(300 * time.Millisecond)
	proxy.Set(harness.Slow) // drops pooled connections: the next request reconnects, slowly
	// pgx pings a pooled connection idle for more than a second before reuse
	// and replaces it if dead; wait past that, as after a real outage.
	time.Sleep(1200 * time.Millisecond)
	type result struct {
		status int
		body   []byte
		took   time.Duration
		err    error
	}
	done := make(chan result, 1)
	before := proxy.Received()
	start := time.Now()
	go func() {
		resp, body, err := harness.Get(t.Context(), harness.ClientFrom("127.0.0.42"), url, key)
		r := result{body: body, took: time.Since(start), err: err}
		if resp != nil {
			r.status = resp.StatusCode
		}
		done <- r
	}()
	// The request is in flight once the replica has sent its database work
	// through the slowed proxy; its answer then takes seconds.
	if !harness.Eventually(t.Context(), 30*time.Second, 10*time.Millisecond, func() bool { return proxy.Received() > before }) {
		t.Fatal("the request sent nothing to PostgreSQL within 30 s")
	}
	if err := s.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	refused := harness.Eventually(t.Context(), 5*time.Second, 10*time.Millisecond, func() bool {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	select {
	case r := <-done:
		done <- r
		t.Errorf("the request ended (after %s) before new connections were refused: the test proves nothing", r.took)
	default:
	}
	if !refused {
		t.Error("the server still accepts connections 5 s after SIGTERM")
	}
	r := <-done
	if r.err != nil || r.status != http.StatusOK {
		t.Fatalf("in-flight request: %d %v %s\n%s", r.status, r.err, r.body, s.Logs)
	}
	if r.took < 700*time.Millisecond {
		t.Errorf("the request took %s: it was not in flight when SIGTERM came, the test proves nothing", r.took)
	}
	e.rec.add("shutdown response", string(r.body))
	if err := s.Wait(30 * time.Second); err != nil {
		t.Errorf("exit after SIGTERM: %v\n%s", err, s.Logs)
	}
}
