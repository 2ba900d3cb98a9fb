package harness

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The processes of the failover group (issue #36): a Redis Cluster of three
// masters each with a replica, a Redis Sentinel set (a master, its replica
// and three sentinels), and the PostgreSQL pair and HAProxy
// of the scale group, driven through a failover: a master killed, a
// primary stopped and its replica promoted, the old primary back. Each
// process is started from Debian's packages on free ports with a directory
// of its own and stopped by its own PID; the machine's Redis and PostgreSQL
// are never touched. The three-master Cluster of the scale group has no
// replicas, so it cannot fail over: this file starts its own.

// RedisProc is one redis-server process of the group: a node, or a
// sentinel (redis-server --sentinel, the program Debian's redis-sentinel
// package links to; that package is not needed, and its service would
// start a sentinel of the machine's own).
type RedisProc struct {
	Addr   string
	dir    string
	log    string
	cmd    *exec.Cmd
	exited chan struct{} // closed once the process has exited and been waited for
}

// startRedisProc starts bin (redis-server) with args made for a free port (and, with bus,
// a free cluster bus port at +10000) and returns once it answers PING. A
// free port can be taken by another process before the bind: a process
// that exits or does not answer is killed (its PID) and started again on
// other ports, three times at most; the error carries its log.
func startRedisProc(bin, dir string, bus bool, args func(port int, log string) ([]string, error)) (*RedisProc, error) {
	if _, err := exec.LookPath(bin); err != nil {
		return nil, fmt.Errorf("%s is required for the failover group: apt-get install redis-server redis-tools (scripts/test-deps.sh does this): %w", bin, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	var last error
	for range 3 {
		port, err := freePort(bus)
		if err != nil {
			return nil, err
		}
		log := filepath.Join(dir, "redis.log")
		os.Remove(log) //nolint:errcheck // an earlier attempt's
		a, err := args(port, log)
		if err != nil {
			return nil, err
		}
		p := &RedisProc{Addr: "127.0.0.1:" + strconv.Itoa(port), dir: dir, log: log, cmd: exec.Command(bin, a...), exited: make(chan struct{})}
		if err := p.cmd.Start(); err != nil {
			return nil, fmt.Errorf("start %s: %w", bin, err)
		}
		go func() {
			p.cmd.Wait() //nolint:errcheck
			close(p.exited)
		}()
		if last = p.waitPong(10 * time.Second); last == nil {
			return p, nil
		}
		p.Kill()
		last = fmt.Errorf("%s on %s: %w\n%s", bin, p.Addr, last, p.Log())
	}
	return nil, last
}

// freePort returns a loopback port that was free a moment ago, with its
// cluster bus port (+10000) free too when bus is set.
func freePort(bus bool) (int, error) {
	for range 50 {
		p, err := FreePort()
		if err != nil || !bus {
			return p, err
		}
		if p+10000 > 65535 {
			continue
		}
		if l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p+10000)); err == nil {
			l.Close()
			return p, nil
		}
	}
	return 0, errors.New("no free port pair for a cluster node")
}

func (p *RedisProc) waitPong(limit time.Duration) error {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		select {
		case <-p.exited:
			return errors.New("the process exited")
		default:
		}
		if out, err := RedisCLI(p.Addr, "PING"); err == nil && out == "PONG" {
			return nil
		}
	}
	return fmt.Errorf("no PONG within %s", limit)
}

// Kill kills the process (SIGKILL, its PID only) and waits until it has
// exited; a process already gone is left alone.
func (p *RedisProc) Kill() {
	select {
	case <-p.exited:
		return
	default:
	}
	p.cmd.Process.Kill() //nolint:errcheck
	<-p.exited
}

// Log returns the process's log file.
func (p *RedisProc) Log() string {
	b, _ := os.ReadFile(p.log)
	return string(b)
}

// RedisCLI runs redis-cli against addr (host:port) with a 3 s limit and
// returns its trimmed output. redis-cli rather than a client library: the
// e2e module stays free of go-redis, and these are a few administrative
// commands (CLUSTER INFO, SENTINEL …), not load.
func RedisCLI(addr string, args ...string) (string, error) {
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "redis-cli", append([]string{"-h", h, "-p", p}, args...)...).Output()
	s := strings.TrimSpace(string(out))
	if err != nil {
		return s, fmt.Errorf("redis-cli -p %s %s: %w", p, strings.Join(args, " "), err)
	}
	if strings.HasPrefix(s, "ERR ") || strings.HasPrefix(s, "Could not connect") {
		return s, fmt.Errorf("redis-cli -p %s %s: %s", p, strings.Join(args, " "), s)
	}
	return s, nil
}

// RedisFailoverCluster is a Redis Cluster of three masters, each with one
// replica (`redis-cli --cluster create … --cluster-replicas 1`), with a
// node timeout of 2 s: a master killed is replaced by its replica a few
// seconds later. cluster-require-full-coverage is off, so that the other
// masters keep serving their slots meanwhile.
type RedisFailoverCluster struct {
	URL   string // the limiter's Cluster form, seeded with the three masters
	Nodes []*RedisProc
}

// ClusterNode is a line of CLUSTER NODES.
type ClusterNode struct {
	ID, Addr string
	Flags    []string
	Slots    [][2]int // ranges, inclusive
}

// Is reports whether the node has flag f (master, slave, fail, fail?, myself…).
func (n ClusterNode) Is(f string) bool {
	for _, g := range n.Flags {
		if g == f {
			return true
		}
	}
	return false
}

// Holds reports whether the node serves slot.
func (n ClusterNode) Holds(slot int) bool {
	for _, r := range n.Slots {
		if slot >= r[0] && slot <= r[1] {
			return true
		}
	}
	return false
}

// StartRedisFailoverCluster starts the six nodes under dir, creates the
// Cluster, and returns once every node reports cluster_state:ok, knows the
// five others, and every replica's link to its master is up.
func StartRedisFailoverCluster(dir string) (*RedisFailoverCluster, error) {
	rc := &RedisFailoverCluster{}
	ok := false
	defer func() {
		if !ok {
			rc.Stop()
		}
	}()
	var addrs []string
	for i := range 6 {
		d := filepath.Join(dir, "node"+strconv.Itoa(i))
		n, err := startRedisProc("redis-server", d, true, func(port int, log string) ([]string, error) {
			conf := filepath.Join(d, "nodes.conf")
			os.Remove(conf) //nolint:errcheck // an earlier attempt's
			return []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
				"--cluster-enabled", "yes", "--cluster-config-file", conf, "--cluster-node-timeout", "2000",
				// The setting a Cluster needs for a lost master to be a
				// partial outage (api-server README, "Readiness on a
				// Cluster"): with the default (yes), every node refuses
				// every key (CLUSTERDOWN) while any slot is unserved, from
				// the master's FAIL to its replica's promotion.
				"--cluster-require-full-coverage", "no",
				"--dir", d, "--save", "", "--appendonly", "no", "--logfile", log}, nil
		})
		if err != nil {
			return nil, err
		}
		rc.Nodes = append(rc.Nodes, n)
		addrs = append(addrs, n.Addr)
	}
	args := append(append([]string{"--cluster", "create"}, addrs...), "--cluster-replicas", "1", "--cluster-yes")
	if out, err := exec.Command("redis-cli", args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("redis-cli --cluster create: %w\n%s", err, out)
	}
	var masters []string
	err := poll(20*time.Second, func() (bool, string) {
		masters = masters[:0]
		for _, n := range rc.Nodes {
			info, _ := RedisCLI(n.Addr, "CLUSTER", "INFO")
			if !strings.Contains(info, "cluster_state:ok") || !strings.Contains(info, "cluster_known_nodes:6") {
				return false, n.Addr + ": " + info
			}
			repl, _ := RedisCLI(n.Addr, "INFO", "replication")
			switch {
			case strings.Contains(repl, "role:master"):
				masters = append(masters, n.Addr)
			case !strings.Contains(repl, "master_link_status:up"):
				return false, n.Addr + ": " + repl
			}
		}
		return len(masters) == 3, fmt.Sprintf("masters %v", masters)
	})
	if err != nil {
		return nil, fmt.Errorf("redis cluster with replicas: %w", err)
	}
	rc.URL = "redis://" + masters[0] + "?addr=" + masters[1] + "&addr=" + masters[2]
	ok = true
	return rc, nil
}

// poll calls cond every 50 ms until it holds or limit passes; the error
// then carries cond's last word. A process tells nobody when it is ready,
// so its state is checked until it is.
func poll(limit time.Duration, cond func() (bool, string)) error {
	var last string
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var ok bool
		if ok, last = cond(); ok {
			return nil
		}
	}
	return fmt.Errorf("not within %s: %s", limit, last)
}

// Node returns the node listening on addr.
func (rc *RedisFailoverCluster) Node(addr string) *RedisProc {
	for _, n := range rc.Nodes {
		if n.Addr == addr {
			return n
		}
	}
	return nil
}

// ClusterNodes returns CLUSTER NODES as node at addr sees it.
func (rc *RedisFailoverCluster) ClusterNodes(addr string) ([]ClusterNode, error) {
	out, err := RedisCLI(addr, "CLUSTER", "NODES")
	if err != nil {
		return nil, err
	}
	var nodes []ClusterNode
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 8 {
			continue
		}
		n := ClusterNode{ID: f[0], Addr: strings.SplitN(f[1], "@", 2)[0], Flags: strings.Split(f[2], ",")}
		for _, s := range f[8:] {
			if strings.HasPrefix(s, "[") { // a slot being migrated
				continue
			}
			lo, hi, _ := strings.Cut(s, "-")
			a, err := strconv.Atoi(lo)
			if err != nil {
				return nil, fmt.Errorf("CLUSTER NODES slot %q: %w", s, err)
			}
			b := a
			if hi != "" {
				if b, err = strconv.Atoi(hi); err != nil {
					return nil, fmt.Errorf("CLUSTER NODES slot %q: %w", s, err)
				}
			}
			n.Slots = append(n.Slots, [2]int{a, b})
		}
		nodes = append(nodes, n)
	}
	return nodes, nil
}

// KeySlot returns the Cluster slot of key (hash tags honoured), asked of a
// node: CLUSTER KEYSLOT is Redis's own CRC16.
func (rc *RedisFailoverCluster) KeySlot(key string) (int, error) {
	for _, n := range rc.Nodes {
		out, err := RedisCLI(n.Addr, "CLUSTER", "KEYSLOT", key)
		if err == nil {
			return strconv.Atoi(out)
		}
	}
	return 0, errors.New("no cluster node answers CLUSTER KEYSLOT")
}

// MasterOf returns the address of the master serving slot, as addr sees it.
func (rc *RedisFailoverCluster) MasterOf(addr string, slot int) (string, error) {
	nodes, err := rc.ClusterNodes(addr)
	if err != nil {
		return "", err
	}
	for _, n := range nodes {
		if n.Is("master") && n.Holds(slot) {
			return n.Addr, nil
		}
	}
	return "", fmt.Errorf("no master serves slot %d", slot)
}

// Stop kills every node still running.
func (rc *RedisFailoverCluster) Stop() {
	for _, n := range rc.Nodes {
		n.Kill()
	}
}

// RedisSentinel is a Redis master, its replica, and three sentinels
// (redis-server --sentinel) monitoring them under the name MasterName (quorum 2, down after
// 1 s): a master killed is replaced by its replica a few seconds later.
type RedisSentinel struct {
	URL        string // the limiter's Sentinel form
	MasterName string
	Master     *RedisProc
	Replica    *RedisProc
	Sentinels  []*RedisProc
}

// StartRedisSentinel starts the set under dir and returns once the replica
// is in sync and every sentinel knows the replica and the two other
// sentinels (without which no failover can be agreed).
func StartRedisSentinel(dir string) (*RedisSentinel, error) {
	s := &RedisSentinel{MasterName: "svcmaster"}
	ok := false
	defer func() {
		if !ok {
			s.Stop()
		}
	}()
	plain := func(d string, extra ...string) func(int, string) ([]string, error) {
		return func(port int, log string) ([]string, error) {
			return append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", d,
				"--save", "", "--appendonly", "no", "--logfile", log}, extra...), nil
		}
	}
	var err error
	md := filepath.Join(dir, "master")
	if s.Master, err = startRedisProc("redis-server", md, false, plain(md)); err != nil {
		return nil, err
	}
	h, p, _ := net.SplitHostPort(s.Master.Addr)
	rd := filepath.Join(dir, "replica")
	if s.Replica, err = startRedisProc("redis-server", rd, false, plain(rd, "--replicaof", h, p)); err != nil {
		return nil, err
	}
	var seeds []string
	for i := range 3 {
		d := filepath.Join(dir, "sentinel"+strconv.Itoa(i))
		sn, err := startRedisProc("redis-server", d, false, func(port int, log string) ([]string, error) {
			// Sentinel rewrites its configuration file: one of its own.
			conf := filepath.Join(d, "sentinel.conf")
			text := fmt.Sprintf("port %d\nbind 127.0.0.1\ndir %s\nlogfile %s\n"+
				"sentinel monitor %s %s %s 2\nsentinel down-after-milliseconds %[4]s 1000\n"+
				"sentinel failover-timeout %[4]s 10000\nsentinel parallel-syncs %[4]s 1\n",
				port, d, log, s.MasterName, h, p)
			return []string{conf, "--sentinel"}, os.WriteFile(conf, []byte(text), 0o600)
		})
		if err != nil {
			return nil, err
		}
		s.Sentinels = append(s.Sentinels, sn)
		seeds = append(seeds, sn.Addr)
	}
	err = poll(20*time.Second, func() (bool, string) {
		repl, _ := RedisCLI(s.Replica.Addr, "INFO", "replication")
		if !strings.Contains(repl, "master_link_status:up") {
			return false, "replica: " + repl
		}
		for _, sn := range s.Sentinels {
			m, _ := RedisCLI(sn.Addr, "SENTINEL", "MASTER", s.MasterName)
			if !strings.Contains(m, "num-slaves\n1") || !strings.Contains(m, "num-other-sentinels\n2") {
				return false, "sentinel " + sn.Addr + ": " + m
			}
		}
		return true, ""
	})
	if err != nil {
		return nil, fmt.Errorf("redis sentinel: %w", err)
	}
	s.URL = fmt.Sprintf("redis://%s/0?master_name=%s&addr=%s&addr=%s", seeds[0], s.MasterName, seeds[1], seeds[2])
	ok = true
	return s, nil
}

// MasterAddr returns the master's address as the first sentinel that
// answers reports it.
func (s *RedisSentinel) MasterAddr() (string, error) {
	var last error
	for _, sn := range s.Sentinels {
		out, err := RedisCLI(sn.Addr, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", s.MasterName)
		if err == nil {
			if f := strings.Fields(out); len(f) == 2 {
				return net.JoinHostPort(f[0], f[1]), nil
			}
			err = fmt.Errorf("sentinel %s: %q", sn.Addr, out)
		}
		last = err
	}
	return "", last
}

// Stop kills every process of the set still running.
func (s *RedisSentinel) Stop() {
	for _, p := range append([]*RedisProc{s.Master, s.Replica}, s.Sentinels...) {
		if p != nil {
			p.Kill()
		}
	}
}

// PrimaryPort and ReplicaPort are the ports of the pair's two servers.
func (pp *PostgresPair) PrimaryPort() int { return urlPort(pp.PrimaryURL) }

// ReplicaPort is the port of the pair's replica (the primary after Promote).
func (pp *PostgresPair) ReplicaPort() int { return urlPort(pp.ReplicaURL) }

func urlPort(raw string) int {
	u, err := url.Parse(raw)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(u.Port())
	return n
}

// MultiHostURL is the libpq multi-host form naming the primary first and
// the replica second, with target_session_attrs=read-write: a client
// connects to whichever of them accepts writes.
func (pp *PostgresPair) MultiHostURL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/postgres?sslmode=disable&target_session_attrs=read-write",
		pp.PrimaryPort(), pp.ReplicaPort())
}

// StopPrimary stops the primary cleanly (pg_ctl stop -m fast: sessions
// ended, a shutdown checkpoint the replica receives) and waits for it.
func (pp *PostgresPair) StopPrimary() error {
	return pp.asPostgres(filepath.Join(pp.bin, "pg_ctl"), "-D", pp.primary, "-m", "fast", "-w", "-t", "30", "stop")
}

// Promote promotes the replica (pg_ctl promote) and waits until it accepts
// writes.
func (pp *PostgresPair) Promote() error {
	return pp.asPostgres(filepath.Join(pp.bin, "pg_ctl"), "-D", pp.replica, "-w", "-t", "30", "promote")
}

// StartPrimary starts the old primary again on its port, as it was: a
// primary (after a promotion of the replica, a second one: split brain).
func (pp *PostgresPair) StartPrimary() error { return pp.start(pp.primary, pp.PrimaryPort()) }

// StartReplica starts the replica again on its port after KillReplica; it
// recovers and resumes streaming from the primary.
func (pp *PostgresPair) StartReplica() error { return pp.start(pp.replica, pp.ReplicaPort()) }

// StartHAProxyFrom starts haproxy in the foreground with the configuration
// file cfg adapted to the test and nothing else changed: each `bind` line
// listens on one free loopback port instead, and the `server` lines, in
// order, point at backends (host:port). It fails when cfg has not exactly
// one bind line or not len(backends) server lines.
func StartHAProxyFrom(dir, cfg string, backends []string) (*HAProxy, error) {
	if _, err := exec.LookPath("haproxy"); err != nil {
		return nil, fmt.Errorf("haproxy is required: apt-get install haproxy (scripts/test-deps.sh does this): %w", err)
	}
	b, err := os.ReadFile(cfg)
	if err != nil {
		return nil, err
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	bind := regexp.MustCompile(`(?m)^(\s*bind\s+)\S+`)
	server := regexp.MustCompile(`(?m)^(\s*server\s+\S+\s+)\S+`)
	if n := len(bind.FindAllIndex(b, -1)); n != 1 {
		return nil, fmt.Errorf("%s: %d bind lines, want 1", cfg, n)
	}
	if n := len(server.FindAllIndex(b, -1)); n != len(backends) {
		return nil, fmt.Errorf("%s: %d server lines, want %d (one a backend)", cfg, n, len(backends))
	}
	b = bind.ReplaceAll(b, []byte("${1}127.0.0.1:"+strconv.Itoa(port)))
	i := 0
	b = server.ReplaceAllFunc(b, func(m []byte) []byte {
		prefix := server.FindSubmatch(m)[1]
		i++
		return append(append([]byte{}, prefix...), backends[i-1]...)
	})
	adapted := filepath.Join(dir, "haproxy-"+filepath.Base(cfg))
	if err := os.WriteFile(adapted, b, 0o600); err != nil {
		return nil, err
	}
	h := &HAProxy{URL: fmt.Sprintf("http://127.0.0.1:%d", port), Logs: &SyncBuffer{}}
	h.cmd = exec.Command("haproxy", "-db", "-f", adapted)
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
