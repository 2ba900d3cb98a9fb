package harness

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Server is a running svc-api process.
type Server struct {
	URL  string // http://127.0.0.1:port
	Logs *SyncBuffer
	cmd  *exec.Cmd
	done chan error
}

// StartServer starts `bin args...` with env added, and waits until GET
// URL/healthz answers 200. Stop it with Stop.
func StartServer(bin string, port int, env []string, args ...string) (*Server, error) {
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), Logs: &SyncBuffer{}, done: make(chan error, 1)}
	s.cmd = exec.Command(bin, args...)
	// No drain on SIGTERM (svc-api's --drain-delay, 5 s by default) unless
	// the test asks for one: no load balancer watches these replicas, and
	// every stop would wait it out. A test's own SVC_DRAIN_DELAY comes
	// later in the list and wins.
	s.cmd.Env = append(append(os.Environ(), "SVC_DRAIN_DELAY=0"), env...)
	s.cmd.Stdout, s.cmd.Stderr = s.Logs, s.Logs
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	go func() { s.done <- s.cmd.Wait() }()
	var exited error
	healthy := false
	Eventually(context.Background(), 30*time.Second, 100*time.Millisecond, func() bool {
		select {
		case err := <-s.done:
			s.done <- err
			exited = fmt.Errorf("%s exited during start-up: %v\n%s", bin, err, s.Logs)
			return true
		default:
		}
		resp, err := http.Get(s.URL + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		healthy = resp.StatusCode == http.StatusOK
		return healthy
	})
	switch {
	case exited != nil:
		return nil, exited
	case healthy:
		return s, nil
	}
	s.cmd.Process.Kill() //nolint:errcheck
	return nil, fmt.Errorf("%s did not become healthy at %s within 30 s\n%s", bin, s.URL, s.Logs)
}

// Signal sends sig to the process without waiting.
func (s *Server) Signal(sig os.Signal) error { return s.cmd.Process.Signal(sig) }

// Wait waits up to timeout for the process to exit and returns its error
// (nil for exit status 0).
func (s *Server) Wait(timeout time.Duration) error {
	select {
	case err := <-s.done:
		s.done <- err
		return err
	case <-time.After(timeout):
		return fmt.Errorf("%s still running after %s", s.URL, timeout)
	}
}

// Stop sends SIGTERM and waits up to 15 s for a graceful exit, then kills.
// It reports an error if the process had to be killed or exited non-zero.
func (s *Server) Stop() error {
	select {
	case err := <-s.done: // already gone
		s.done <- err
		return err
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck
	select {
	case err := <-s.done:
		s.done <- err
		return err
	case <-time.After(15 * time.Second):
		s.cmd.Process.Kill() //nolint:errcheck
		return fmt.Errorf("%s did not stop within 15 s of SIGTERM", s.URL)
	}
}

// Get sends GET url with the bearer key (if not empty) through client (see
// ClientFrom) and returns the response and its whole body.
func Get(ctx context.Context, client *http.Client, url, key string) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, nil, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}
