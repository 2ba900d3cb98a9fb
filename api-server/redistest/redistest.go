// Package redistest starts throwaway Redis servers for tests: a Redis Cluster
// of three masters, each node a redis-server process on free ports with a
// directory of its own, joined by `redis-cli --cluster create`, and stopped
// by its own PID. The machine's Redis is never touched.
//
// It is the one Cluster start-up of the repository: api-server's tests (its
// internal/testenv) and the e2e suite's scale group both use it, which is
// why it is an exported package of the api-server module rather than an
// internal one. It needs Debian's redis-server and redis-tools and nothing
// but the standard library.
package redistest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Cluster is a running three-master Redis Cluster (no replicas).
type Cluster struct {
	// URL is the api-server limiter's Cluster form:
	// redis://node1?addr=node2&addr=node3.
	URL string
	// Addrs are the masters' host:port, in start order.
	Addrs []string
	nodes []*node
}

type node struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed when the process has exited and been waited for
}

// Attempts is how many times a node is started on fresh ports when it does
// not listen: a port found free can be taken by another process before
// redis-server binds it (a CI run once failed so).
const Attempts = 3

// nodeTimeout is the Cluster's cluster-node-timeout.
const nodeTimeout = 2 * time.Second

// freePortPair returns a loopback port that was free a moment ago, with its
// cluster bus port (+10000) free too. Tests replace it to provoke the race.
var freePortPair = func() (int, error) {
	for range 50 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("free port: %w", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
		if port+10000 > 65535 {
			continue
		}
		if b, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port+10000)); err == nil {
			_ = b.Close()
			return port, nil
		}
	}
	return 0, errors.New("no free port pair for a cluster node")
}

// StartCluster starts a three-master Redis Cluster under dir (made if
// needed; node i keeps its files in dir/node<i>) and returns once every node
// reports cluster_state:ok, or an error, having stopped what it started. ctx
// bounds the whole start-up. The error says how to install redis-server and
// redis-cli when they are missing.
func StartCluster(ctx context.Context, dir string) (*Cluster, error) {
	for _, bin := range []string{"redis-server", "redis-cli"} {
		if _, err := exec.LookPath(bin); err != nil {
			return nil, fmt.Errorf("%s is required for the Redis Cluster tests: apt-get install redis-server redis-tools (scripts/test-deps.sh does this): %w", bin, err)
		}
	}
	c := &Cluster{}
	ok := false
	defer func() {
		if !ok {
			c.Stop()
		}
	}()
	for i := range 3 {
		d := filepath.Join(dir, "node"+strconv.Itoa(i))
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("redis cluster dir: %w", err)
		}
		n, addr, err := startNode(ctx, d)
		if err != nil {
			return nil, err
		}
		c.nodes = append(c.nodes, n)
		c.Addrs = append(c.Addrs, addr)
	}
	args := append(append([]string{"--cluster", "create"}, c.Addrs...), "--cluster-yes")
	if out, err := exec.CommandContext(ctx, "redis-cli", args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("redis-cli --cluster create: %w\n%s", err, out)
	}
	for _, a := range c.Addrs {
		var info string
		err := poll(ctx, 15*time.Second, nil, func() bool {
			info = clusterInfo(ctx, a)
			return strings.Contains(info, "cluster_state:ok")
		})
		if err != nil {
			return nil, fmt.Errorf("redis cluster node %s: cluster not ok: %w; cluster info: %q", a, err, info)
		}
	}
	c.URL = "redis://" + c.Addrs[0] + "?addr=" + c.Addrs[1] + "&addr=" + c.Addrs[2]
	ok = true
	return c, nil
}

// startNode starts one cluster node in d on a free port pair and returns
// once it answers PING. A node that exits or does not answer is stopped (its PID)
// and started again on other ports, Attempts times at most; the error then
// carries its log.
func startNode(ctx context.Context, d string) (*node, string, error) {
	var last error
	for range Attempts {
		port, err := freePortPair()
		if err != nil {
			return nil, "", err
		}
		logFile, conf := filepath.Join(d, "redis.log"), filepath.Join(d, "nodes.conf")
		_ = os.Remove(logFile) // an earlier attempt's
		_ = os.Remove(conf)
		cmd := exec.Command("redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--cluster-enabled", "yes", "--cluster-config-file", conf,
			"--cluster-node-timeout", strconv.Itoa(int(nodeTimeout/time.Millisecond)),
			"--dir", d, "--save", "", "--appendonly", "no", "--logfile", logFile)
		if err := cmd.Start(); err != nil {
			return nil, "", fmt.Errorf("start redis-server: %w", err)
		}
		n := &node{cmd: cmd, exited: make(chan struct{})}
		go func() {
			_ = cmd.Wait()
			close(n.exited)
		}()
		addr := "127.0.0.1:" + strconv.Itoa(port)
		if last = poll(ctx, 10*time.Second, n.exited, func() bool { return pong(addr) }); last == nil {
			return n, addr, nil
		}
		n.kill()
		log, _ := os.ReadFile(logFile)
		last = fmt.Errorf("redis-server on %s: %w\n%s", addr, last, log)
	}
	return nil, "", last
}

// errExited is poll's error when the process it waits for has exited.
var errExited = errors.New("the process exited")

// poll calls ok at once and then every 20 ms until it returns true, and
// fails when ctx ends, after limit, or when exited (if not nil) is closed.
// It is the one wait of this package: a process tells nobody when it
// listens, so the condition is checked until it holds.
func poll(ctx context.Context, limit time.Duration, exited <-chan struct{}, ok func() bool) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !ok() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("not within %s: %w", limit, ctx.Err())
		case <-exited:
			return errExited
		case <-tick.C:
		}
	}
	return nil
}

// pong reports whether a Redis server answers PING at addr: a port that
// merely accepts connections may be another process's, which took it
// before redis-server could.
func pong(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	buf := make([]byte, len("+PONG\r\n"))
	_, err = io.ReadFull(c, buf)
	return err == nil && string(buf) == "+PONG\r\n"
}

func clusterInfo(ctx context.Context, addr string) string {
	h, p, _ := net.SplitHostPort(addr)
	out, _ := exec.CommandContext(ctx, "redis-cli", "-h", h, "-p", p, "cluster", "info").Output()
	return string(out)
}

// Info returns node i's CLUSTER INFO reply (cluster_state:ok or
// cluster_state:fail, and the rest), empty when the node does not answer.
func (c *Cluster) Info(ctx context.Context, i int) string { return clusterInfo(ctx, c.Addrs[i]) }

// Process returns node i's process, for tests that stop (SIGSTOP) or kill
// it; Stop continues a stopped node before it kills it.
func (c *Cluster) Process(i int) *os.Process { return c.nodes[i].cmd.Process }

// Kill kills node i (SIGKILL, its PID only) and waits until it has exited.
func (c *Cluster) Kill(i int) { c.nodes[i].kill() }

// Stop kills every node the cluster started and waits until each has
// exited. The directories stay; they belong to the caller.
func (c *Cluster) Stop() {
	for _, n := range c.nodes {
		n.kill()
	}
}

func (n *node) kill() {
	select {
	case <-n.exited:
		return
	default:
	}
	_ = n.cmd.Process.Signal(syscall.SIGCONT) // a test may have stopped it
	_ = n.cmd.Process.Kill()
	<-n.exited
}
