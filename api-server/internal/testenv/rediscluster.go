package testenv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisCluster is a Redis Cluster of three masters (no replicas) that a
// test started: redis-server processes on free ports, each with its own
// directory, joined by `redis-cli --cluster create`. The machine's Redis is
// never touched.
type RedisCluster struct {
	URL   string // the limiter's Cluster URL form: redis://node1?addr=node2&addr=node3
	Addrs []string
	procs []*os.Process
	dir   string
}

// StartRedisCluster starts a three-master Redis Cluster under dir (made if
// needed) and waits until it serves every slot. The error says how to
// install redis-server when it is missing.
func StartRedisCluster(ctx context.Context, dir string) (*RedisCluster, error) {
	for _, bin := range []string{"redis-server", "redis-cli"} {
		if _, err := exec.LookPath(bin); err != nil {
			return nil, fmt.Errorf("%s is required for the Redis Cluster tests: apt-get install redis-server redis-tools (scripts/test-deps.sh does this): %w", bin, err)
		}
	}
	rc := &RedisCluster{dir: dir}
	ok := false
	defer func() {
		if !ok {
			rc.Stop()
		}
	}()
	for i := range 3 {
		port, err := clusterPort()
		if err != nil {
			return nil, err
		}
		d := filepath.Join(dir, "node"+strconv.Itoa(i))
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("redis cluster dir: %w", err)
		}
		cmd := exec.Command("redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(d, "nodes.conf"),
			"--cluster-node-timeout", "2000", "--dir", d, "--save", "", "--appendonly", "no",
			"--logfile", filepath.Join(d, "redis.log"))
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("start redis-server: %w", err)
		}
		rc.procs = append(rc.procs, cmd.Process)
		go func() { _ = cmd.Wait() }()
		rc.Addrs = append(rc.Addrs, "127.0.0.1:"+strconv.Itoa(port))
	}
	for _, a := range rc.Addrs {
		if err := waitPing(ctx, a); err != nil {
			return nil, err
		}
	}
	args := append(append([]string{"--cluster", "create"}, rc.Addrs...), "--cluster-yes")
	if out, err := exec.CommandContext(ctx, "redis-cli", args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("redis-cli --cluster create: %w: %s", err, out)
	}
	for _, a := range rc.Addrs {
		if err := waitClusterOK(ctx, a); err != nil {
			return nil, err
		}
	}
	rc.URL = "redis://" + rc.Addrs[0] + "?addr=" + rc.Addrs[1] + "&addr=" + rc.Addrs[2]
	ok = true
	return rc, nil
}

// Node returns the PID of node i, for tests that stop one.
func (rc *RedisCluster) Node(i int) *os.Process { return rc.procs[i] }

// Stop kills the cluster's processes (exactly those it started) and removes
// their directories.
func (rc *RedisCluster) Stop() {
	for _, p := range rc.procs {
		_ = p.Signal(syscall.SIGCONT) // a test may have stopped it
		_ = p.Kill()
	}
	rc.procs = nil
	if rc.dir != "" {
		_ = os.RemoveAll(rc.dir)
	}
}

// clusterPort returns a free port whose cluster bus port (+10000) is free too.
func clusterPort() (int, error) {
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
		b, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port+10000))
		if err != nil {
			continue
		}
		_ = b.Close()
		return port, nil
	}
	return 0, errors.New("no free port pair for a cluster node")
}

func waitPing(ctx context.Context, addr string) error {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DisableIdentity: true})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := c.Ping(ctx).Err()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redis cluster node %s did not start: %w", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func waitClusterOK(ctx context.Context, addr string) error {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DisableIdentity: true})
	defer c.Close()
	deadline := time.Now().Add(15 * time.Second)
	for {
		info, err := c.ClusterInfo(ctx).Result()
		if err == nil && strings.Contains(info, "cluster_state:ok") {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redis cluster node %s: cluster not ok after 15 s: %v %q", addr, err, info)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
