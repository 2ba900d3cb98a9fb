package redistest

import (
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestStartCluster: three masters that agree on a healthy cluster, the URL
// form the limiter reads, Kill stops one node, Stop the rest, each process
// exited and waited for.
func TestStartCluster(t *testing.T) {
	c, err := StartCluster(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	if len(c.Addrs) != 3 || c.Addrs[0] == c.Addrs[1] || c.Addrs[1] == c.Addrs[2] || c.Addrs[0] == c.Addrs[2] {
		t.Fatalf("addresses %q", c.Addrs)
	}
	if want := "redis://" + c.Addrs[0] + "?addr=" + c.Addrs[1] + "&addr=" + c.Addrs[2]; c.URL != want {
		t.Errorf("URL %q, want %q", c.URL, want)
	}
	for i, a := range c.Addrs {
		info := c.Info(t.Context(), i)
		for _, want := range []string{"cluster_state:ok", "cluster_known_nodes:3", "cluster_size:3", "cluster_slots_assigned:16384"} {
			if !strings.Contains(info, want) {
				t.Errorf("%s: cluster info lacks %s:\n%s", a, want, info)
			}
		}
	}
	p := c.Process(1)
	if err := p.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	c.Kill(1)
	if pong(c.Addrs[1]) {
		t.Error("node 1 answers after Kill")
	}
	c.Stop()
	for i, a := range c.Addrs {
		if pong(a) {
			t.Errorf("node %d answers after Stop", i)
		}
		if err := c.Process(i).Signal(syscall.Signal(0)); err == nil {
			t.Errorf("node %d (pid %d) still exists after Stop", i, c.Process(i).Pid)
		}
	}
}

// takenPort holds a loopback port without answering on it, as another
// process that took a port found free would.
func takenPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l.Addr().(*net.TCPAddr).Port
}

// withPorts makes freePortPair return the given ports first, then free ones.
func withPorts(t *testing.T, ports ...int) {
	t.Helper()
	real := freePortPair
	t.Cleanup(func() { freePortPair = real })
	freePortPair = func() (int, error) {
		if len(ports) == 0 {
			return real()
		}
		p := ports[0]
		ports = ports[1:]
		return p, nil
	}
}

// TestStartNodeTakesOtherPorts: a node whose port another process took
// between the check and redis-server's bind is started again on other
// ports (the e2e failure that commit 2d9bbe5 fixed in one of two copies).
func TestStartNodeTakesOtherPorts(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatalf("redis-server is required: apt-get install redis-server: %v", err)
	}
	taken := takenPort(t)
	withPorts(t, taken)
	n, addr, err := startNode(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer n.kill()
	if addr == "127.0.0.1:"+strconv.Itoa(taken) {
		t.Fatalf("the node claims the taken port %s", addr)
	}
	if !pong(addr) {
		t.Errorf("the node at %s does not answer", addr)
	}
}

// TestStartNodeGivesUp: after Attempts taken ports the error carries
// redis-server's log, and no process is left behind.
func TestStartNodeGivesUp(t *testing.T) {
	taken := takenPort(t)
	ports := make([]int, Attempts)
	for i := range ports {
		ports[i] = taken
	}
	withPorts(t, ports...)
	dir := t.TempDir()
	_, _, err := startNode(t.Context(), dir)
	if err == nil {
		t.Fatal("startNode succeeded on a taken port")
	}
	if !strings.Contains(err.Error(), "Address already in use") || !strings.Contains(err.Error(), strconv.Itoa(taken)) {
		t.Errorf("error without the node's log: %v", err)
	}
	out, _ := exec.Command("pgrep", "-f", "redis-server 127.0.0.1:"+strconv.Itoa(taken)).Output()
	if len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("a redis-server on the taken port is still running: pids %s", out)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("the node directory is gone: %v", err)
	}
}
