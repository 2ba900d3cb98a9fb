package harness

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The processes of the scale group (issue #16): a PostgreSQL primary with a
// streaming replica, and HAProxy, each started from Debian's packages on
// free ports with directories of their own, and stopped by their own PIDs;
// its Redis Cluster is api-server's redistest, the start-up api-server's own
// tests use. The machine's PostgreSQL and Redis are never touched.

func waitListen(addr string, d time.Duration) error {
	if Eventually(context.Background(), d, 50*time.Millisecond, func() bool { return listens(addr) }) {
		return nil
	}
	return fmt.Errorf("nothing listens on %s after %s", addr, d)
}

// listens reports whether addr accepts a TCP connection.
func listens(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// PostgresPair is a PostgreSQL primary and a streaming replica made from
// it by pg_basebackup, in data directories of their own, run as the
// postgres user (initdb refuses root).
type PostgresPair struct {
	PrimaryURL, ReplicaURL string
	dir                    string
	primary, replica       string // data directories
	bin                    string
	logs                   []string
}

// PostgresBin returns the directory of Debian's PostgreSQL server programs
// (/usr/lib/postgresql/N/bin, the highest N).
func PostgresBin() (string, error) {
	m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(m) == 0 {
		return "", errors.New("PostgreSQL's server programs are required for the scale group (/usr/lib/postgresql/*/bin/initdb): apt-get install postgresql")
	}
	best := m[0]
	for _, p := range m[1:] {
		if n, b := pgMajor(p), pgMajor(best); n > b {
			best = p
		}
	}
	return filepath.Dir(best), nil
}

func pgMajor(initdb string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return n
}

// StartPostgresPair initialises a primary under dir, starts it, and makes
// and starts a hot-standby replica with pg_basebackup. dir must be
// reachable by the postgres user; it is given to that user. setup, if not nil, runs against the
// primary before the base backup (so that the replica starts with the data).
func StartPostgresPair(dir string, setup func(primaryURL string) error) (*PostgresPair, error) {
	bin, err := PostgresBin()
	if err != nil {
		return nil, err
	}
	if _, err := exec.LookPath("runuser"); err != nil {
		return nil, fmt.Errorf("runuser (util-linux) is required to run PostgreSQL as the postgres user: %w", err)
	}
	pg, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("the postgres user (Debian's postgresql package makes it) is required: %w", err)
	}
	uid, _ := strconv.Atoi(pg.Uid)
	gid, _ := strconv.Atoi(pg.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	pp := &PostgresPair{dir: dir, primary: filepath.Join(dir, "primary"), replica: filepath.Join(dir, "replica"), bin: bin}
	if err := pp.asPostgres("mkdir", "-m", "0700", pp.primary); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			pp.Stop()
		}
	}()
	if err := pp.asPostgres(filepath.Join(bin, "initdb"), "-D", pp.primary, "-A", "trust", "-U", "postgres", "--no-sync"); err != nil {
		return nil, err
	}
	pport, err := FreePort()
	if err != nil {
		return nil, err
	}
	if err := pp.start(pp.primary, pport); err != nil {
		return nil, err
	}
	pp.PrimaryURL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", pport)
	if setup != nil {
		if err := setup(pp.PrimaryURL); err != nil {
			return nil, err
		}
	}
	if err := pp.asPostgres(filepath.Join(bin, "pg_basebackup"), "-h", "127.0.0.1", "-p", strconv.Itoa(pport), "-U", "postgres",
		"-D", pp.replica, "-R", "-X", "stream", "--checkpoint=fast", "--no-sync"); err != nil {
		return nil, err
	}
	rport, err := FreePort()
	if err != nil {
		return nil, err
	}
	if err := pp.start(pp.replica, rport); err != nil {
		return nil, err
	}
	pp.ReplicaURL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", rport)
	ok = true
	return pp, nil
}

func (pp *PostgresPair) asPostgres(args ...string) error {
	out, err := exec.Command("runuser", append([]string{"-u", "postgres", "--"}, args...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

func (pp *PostgresPair) start(data string, port int) error {
	log := data + ".log"
	pp.logs = append(pp.logs, log)
	return pp.asPostgres(filepath.Join(pp.bin, "pg_ctl"), "-D", data, "-l", log, "-w", "-t", "30", "start", "-o",
		fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -k %s -c fsync=off -c max_connections=200 -c wal_level=replica", port, pp.dir))
}

// pid reads the postmaster's PID of data, 0 when it does not run.
func pid(data string) int {
	b, err := os.ReadFile(filepath.Join(data, "postmaster.pid"))
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	return n
}

// KillReplica stops the replica at once (SIGQUIT to its postmaster, by the
// PID in its postmaster.pid: PostgreSQL's immediate shutdown) and waits
// until it is gone.
func (pp *PostgresPair) KillReplica() error { return stopPostmaster(pp.replica) }

func stopPostmaster(data string) error {
	p := pid(data)
	if p == 0 {
		return nil
	}
	if err := syscall.Kill(p, syscall.SIGQUIT); err != nil {
		return err
	}
	// Not our child (runuser started it): its exit is seen by asking.
	if Eventually(context.Background(), 15*time.Second, 50*time.Millisecond, func() bool { return syscall.Kill(p, 0) != nil }) {
		return nil
	}
	return fmt.Errorf("postmaster %d of %s still runs 15 s after SIGQUIT", p, data)
}

// Stop stops both servers (each by its own postmaster PID) and removes
// their directories.
func (pp *PostgresPair) Stop() {
	stopPostmaster(pp.replica) //nolint:errcheck
	stopPostmaster(pp.primary) //nolint:errcheck
	os.RemoveAll(pp.dir)       //nolint:errcheck
}

// HAProxy is an haproxy process balancing HTTP over backends.
type HAProxy struct {
	URL  string
	Logs *SyncBuffer
	cmd  *exec.Cmd
}

// StartHAProxy starts haproxy in the foreground on a free port with a
// configuration written to dir: round robin over backends (host:port),
// X-Forwarded-For added, health checks on /healthz every 200 ms, and
// retries of idempotent requests on another server when a connection
// fails or a server closes without answering (retry-on, option redispatch).
func StartHAProxy(dir string, backends []string) (*HAProxy, error) {
	if _, err := exec.LookPath("haproxy"); err != nil {
		return nil, fmt.Errorf("haproxy is required for the scale group: apt-get install haproxy (scripts/test-deps.sh does this): %w", err)
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, `global
  maxconn 2000
defaults
  mode http
  timeout connect 1s
  timeout client 20s
  timeout server 16s
  retries 3
  option redispatch 1
  retry-on conn-failure empty-response response-timeout
  option forwardfor
frontend api
  bind 127.0.0.1:%d
  default_backend replicas
backend replicas
  balance roundrobin
  option httpchk GET /healthz
`, port)
	for i, be := range backends {
		fmt.Fprintf(&b, "  server r%d %s check inter 200ms fall 1 rise 1\n", i, be)
	}
	cfg := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(b.String()), 0o600); err != nil {
		return nil, err
	}
	h := &HAProxy{URL: fmt.Sprintf("http://127.0.0.1:%d", port), Logs: &SyncBuffer{}}
	h.cmd = exec.Command("haproxy", "-db", "-f", cfg)
	h.cmd.Stdout, h.cmd.Stderr = h.Logs, h.Logs
	if err := h.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start haproxy: %w", err)
	}
	if err := waitListen(fmt.Sprintf("127.0.0.1:%d", port), 10*time.Second); err != nil {
		h.Stop()
		return nil, fmt.Errorf("haproxy: %w\n%s", err, h.Logs)
	}
	return h, nil
}

// Stop kills haproxy (its PID) and waits for it.
func (h *HAProxy) Stop() {
	h.cmd.Process.Kill() //nolint:errcheck
	h.cmd.Wait()         //nolint:errcheck
}
