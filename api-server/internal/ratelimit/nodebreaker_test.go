package ratelimit_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/redis/go-redis/v9"
)

// TestKeySlot: the limiter's slot computation is Redis Cluster's (CLUSTER
// KEYSLOT on a real node), hash tags included.
func TestKeySlot(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: cluster.Addrs[0]})
	defer c.Close()
	for _, k := range []string{"a", "ready-0", "ready-12345", "rate:ns:{org:org_a}:key:k1", "{ip:127.0.0.2}", "x{}y", "{}", "a{b", "é{ü}"} {
		want, err := c.ClusterKeySlot(t.Context(), k).Result()
		if err != nil {
			t.Fatal(err)
		}
		if got := ratelimit.KeySlot(k); got != int(want) {
			t.Errorf("KeySlot(%q) = %d, Redis says %d", k, got, want)
		}
	}
}

// tagsOnTwoMasters returns two group tags whose slots two different
// masters serve, and the first one's master.
func tagsOnTwoMasters(t *testing.T, l *ratelimit.Redis) (a, b, masterA string) {
	t.Helper()
	cc := l.Client().(*redis.ClusterClient)
	master := func(tag string) string {
		n, err := cc.MasterForKey(t.Context(), "{"+tag+"}")
		if err != nil {
			t.Fatal(err)
		}
		return n.Options().Addr
	}
	a = "org:a" + testenv.Namespace()
	masterA = master(a)
	for i := 0; ; i++ {
		b = "org:b" + strconv.Itoa(i)
		if master(b) != masterA {
			return a, b, masterA
		}
	}
}

// allowTag takes one request from the key bucket of group tag and returns
// how long the call took.
func allowTag(ctx context.Context, l ratelimit.Limiter, tag string) (time.Duration, error) {
	res := make([]ratelimit.Result, 2)
	start := time.Now()
	err := l.Allow(ctx, []ratelimit.Check{
		{Limit: perHour("key", 1000), Key: "key:" + tag, Group: tag},
		{Limit: perHour("org", 1000), Key: tag, Group: tag},
	}, res)
	return time.Since(start), err
}

// TestNodeBreakers (issue 36): on a Cluster one master that does not answer
// refuses only the requests whose buckets live on it; after three
// failures in a row they are refused at once (no wait for the deadline),
// one probe going through every 100 ms; the other masters' requests never
// fail; ProbeNodes names the master down and is no error while the others
// serve; and the master's requests are served again within about its
// breaker's second once it answers. The master is stopped (SIGSTOP) for
// less than the Cluster's node timeout (2 s), so the Cluster itself never
// fails.
func TestNodeBreakers(t *testing.T) {
	const deadline = 200 * time.Millisecond
	l, err := ratelimit.NewRedis(clusterURL, testenv.Namespace(), deadline)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if !l.PerNode() {
		t.Fatal("a Cluster limiter does not break per node")
	}
	ctx := t.Context()
	a, b, masterA := tagsOnTwoMasters(t, l)
	var p *os.Process
	for i, addr := range cluster.Addrs {
		if addr == masterA {
			p = cluster.Node(i)
		}
	}
	if p == nil {
		t.Fatalf("master %s is not one of %v", masterA, cluster.Addrs)
	}
	for _, tag := range []string{a, b} {
		if _, err := allowTag(ctx, l, tag); err != nil {
			t.Fatalf("%s before the stop: %v", tag, err)
		}
	}

	if err := p.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := true
	defer func() {
		if stopped {
			_ = p.Signal(syscall.SIGCONT)
		}
	}()
	for i := range 3 {
		if _, err := allowTag(ctx, l, a); !errors.Is(err, ratelimit.ErrUnavailable) {
			t.Fatalf("failure %d of the stopped master: %v, want ErrUnavailable", i+1, err)
		}
	}
	fast := 0
	for range 10 {
		d, err := allowTag(ctx, l, a)
		if !errors.Is(err, ratelimit.ErrUnavailable) {
			t.Fatalf("the stopped master's group: %v, want ErrUnavailable", err)
		}
		if d < deadline/4 {
			fast++
		}
	}
	for i := range 5 {
		if d, err := allowTag(ctx, l, b); err != nil || d >= deadline {
			t.Fatalf("request %d of a group on a master that answers: %v after %s", i, err, d)
		}
	}
	st, perr := l.ProbeNodes(ctx)
	_ = p.Signal(syscall.SIGCONT)
	stopped = false
	resumed := time.Now()
	if fast < 8 {
		t.Errorf("after three failures, %d of 10 requests on the stopped master were refused at once, want at least 8 (one probe a 100 ms)", fast)
	}
	down := 0
	for _, n := range st {
		if !n.Healthy {
			down++
			if n.Node != masterA || n.Reason == "" {
				t.Errorf("unhealthy node %+v, want %s with a reason", n, masterA)
			}
		}
	}
	if perr != nil || len(st) != 3 || down != 1 {
		t.Errorf("ProbeNodes with one master stopped: %v %+v, want no error and one of three masters unhealthy", perr, st)
	}

	var last error
	for time.Since(resumed) < 3*time.Second {
		if _, last = allowTag(ctx, l, a); last == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if last != nil {
		t.Fatalf("the master's group 3 s after it answers again: %v", last)
	}
	t.Logf("served again %s after the master answered", time.Since(resumed).Round(time.Millisecond))
	if st, err := l.ProbeNodes(ctx); err != nil || len(st) != 3 || !st[0].Healthy || !st[1].Healthy || !st[2].Healthy {
		t.Errorf("ProbeNodes once the master answers: %v %+v", err, st)
	}
}

// TestClusterFollowsSlotMove (issue 36): when a master dies, its groups are
// served again as soon as the Cluster serves its slots elsewhere, without
// the MOVED a dead master cannot send and without go-redis's periodic
// layout reload (a minute): each failure reloads the layout. On a Cluster
// of its own (a master is killed): the slot of one group is given to
// another master, as a failover does (CLUSTER BUMPEPOCH, CLUSTER SETSLOT …
// NODE on the two masters left), with cluster-require-full-coverage off so
// that the dead master's other slots do not stop the Cluster.
func TestClusterFollowsSlotMove(t *testing.T) {
	dir, err := os.MkdirTemp("", "ratelimit-slotmove-")
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	rc, err := testenv.StartRedisCluster(sctx, dir)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Stop()
	ctx := t.Context()
	nodes := map[string]*redis.Client{}
	for _, addr := range rc.Addrs {
		c := redis.NewClient(&redis.Options{Addr: addr})
		defer c.Close()
		nodes[addr] = c
		if err := c.ConfigSet(ctx, "cluster-require-full-coverage", "no").Err(); err != nil {
			t.Fatal(err)
		}
	}
	l, err := ratelimit.NewRedis(rc.URL, testenv.Namespace(), 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	a, b, masterA := tagsOnTwoMasters(t, l)
	for _, tag := range []string{a, b} {
		if _, err := allowTag(ctx, l, tag); err != nil {
			t.Fatalf("%s before the kill: %v", tag, err)
		}
	}
	var heir string
	for i, addr := range rc.Addrs {
		if addr == masterA {
			rc.Kill(i)
		} else if heir == "" {
			heir = addr
		}
	}
	delete(nodes, masterA)
	for i := range 5 {
		if _, err := allowTag(ctx, l, a); !errors.Is(err, ratelimit.ErrUnavailable) {
			t.Fatalf("request %d on the killed master: %v, want ErrUnavailable", i, err)
		}
	}
	slot := ratelimit.KeySlot(a)
	id, err := nodes[heir].ClusterMyID(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	if err := nodes[heir].Do(ctx, "CLUSTER", "BUMPEPOCH").Err(); err != nil {
		t.Fatal(err)
	}
	for _, c := range nodes {
		if err := c.Do(ctx, "CLUSTER", "SETSLOT", slot, "NODE", id).Err(); err != nil {
			t.Fatal(err)
		}
	}
	moved := time.Now()
	var last error
	for time.Since(moved) < 5*time.Second {
		if _, last = allowTag(ctx, l, a); last == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	took := time.Since(moved)
	if last != nil {
		t.Fatalf("the group whose slot moved to %s: still %v 5 s later", heir, last)
	}
	t.Logf("served by the slot's new master %s after the move", took.Round(time.Millisecond))
	if took > 1500*time.Millisecond {
		t.Errorf("served %s after the slot moved, want within 1.5 s (issue 36)", took.Round(time.Millisecond))
	}
	if _, err := allowTag(ctx, l, b); err != nil {
		t.Errorf("a group on a master that never failed: %v", err)
	}
}
