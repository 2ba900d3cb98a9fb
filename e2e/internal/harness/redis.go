package harness

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// RedisServer is a redis-server process of the test's own, on a free port
// with its own directory, so that a test can stop it (SIGSTOP) without
// touching the Redis other tests share.
type RedisServer struct {
	Addr string
	Logs *SyncBuffer
	cmd  *exec.Cmd
}

// StartRedis starts redis-server on a free loopback port, without
// persistence, in dir, and waits until it accepts connections.
func StartRedis(dir string) (*RedisServer, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("redis-server is required for this test and not on PATH (install it: apt-get install redis-server; scripts/services.sh uses it too): %w", err)
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	r := &RedisServer{Addr: fmt.Sprintf("127.0.0.1:%d", port), Logs: &SyncBuffer{}}
	r.cmd = exec.Command(bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--dir", dir,
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning")
	r.cmd.Stdout, r.cmd.Stderr = r.Logs, r.Logs
	if err := r.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start redis-server: %w", err)
	}
	if Eventually(context.Background(), 10*time.Second, 50*time.Millisecond, func() bool { return listens(r.Addr) }) {
		return r, nil
	}
	r.Stop()
	return nil, fmt.Errorf("redis-server did not listen on %s within 10 s\n%s", r.Addr, r.Logs)
}

// Pause stops the process (SIGSTOP): connections stay open, nothing answers.
func (r *RedisServer) Pause() error { return r.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume continues a paused process (SIGCONT).
func (r *RedisServer) Resume() error { return r.cmd.Process.Signal(syscall.SIGCONT) }

// Stop resumes and kills this process (its PID only) and waits for it.
func (r *RedisServer) Stop() {
	r.cmd.Process.Signal(syscall.SIGCONT) //nolint:errcheck
	r.cmd.Process.Signal(os.Kill)         //nolint:errcheck
	r.cmd.Wait()                          //nolint:errcheck
}
