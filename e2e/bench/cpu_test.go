package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"math"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// burn spins until this process has used d more CPU time (getrusage), so
// that the machine's other load does not change what it burns.
func burn(t *testing.T, d time.Duration) float64 {
	x := 1.0
	for end := rusageSeconds(t) + d.Seconds(); rusageSeconds(t) < end; {
		for range 10000 {
			x = math.Sqrt(x + 1)
		}
	}
	return x
}

func rusageSeconds(t *testing.T) float64 {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// procCPU of the test's own process agrees with getrusage and grows by the
// CPU the test burns.
func TestProcCPUOwnProcess(t *testing.T) {
	pid := os.Getpid()
	before := procCPU(pid)
	_ = burn(t, 300*time.Millisecond)
	lo := rusageSeconds(t)
	got := procCPU(pid)
	hi := rusageSeconds(t)
	// /proc counts in ticks of 10 ms, per thread, rounded down.
	if got < lo-0.05 || got > hi+0.01 {
		t.Errorf("procCPU = %.3f s, getrusage between %.3f and %.3f s", got, lo, hi)
	}
	if d := got - before; d < 0.2 {
		t.Errorf("procCPU grew by %.3f s over 300 ms of CPU burnt, want ≥ 0.2 s", d)
	}
	if procCPU(1<<30) != 0 {
		t.Error("procCPU of a PID that does not exist is not 0")
	}
}

func TestStatCPU(t *testing.T) {
	// Field 2 holds spaces and parentheses; utime 250 and stime 50 ticks.
	stat := "4242 (a) b (c) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0 100 1000 10 18446744073709551615\n"
	if v, ok := statCPU([]byte(stat)); !ok || v != 3.0 {
		t.Errorf("statCPU = %v, %v; want 3 s", v, ok)
	}
	own, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := statCPU(own); !ok {
		t.Errorf("statCPU cannot read /proc/self/stat: %q", own)
	}
	for _, bad := range []string{"", "4242 (x S 1", "4242 (x) S 1 2 3", "4242 (x) S 1 4242 4242 0 -1 4194560 100 0 0 0 u s 0"} {
		if _, ok := statCPU([]byte(bad)); ok {
			t.Errorf("statCPU(%q) ok", bad)
		}
	}
}

func TestTitles(t *testing.T) {
	for _, c := range []struct {
		title string
		want  bool
	}{
		{"postgres: 15/main: postgres bench_ab_1000 127.0.0.1(41690) idle", true},
		{"postgres: postgres bench_ab_1000 [local] SELECT", true},
		{"postgres: 15/main: postgres bench_ab_10000 127.0.0.1(41690) idle", false},
		{"postgres: 15/main: checkpointer", false},
		{"postgres: 15/main: autovacuum worker bench_ab_1000", false},
		{"/usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main", false},
	} {
		if got := pgBackendOf(c.title, "bench_ab_1000"); got != c.want {
			t.Errorf("pgBackendOf(%q) = %v", c.title, got)
		}
	}
	for _, c := range []struct {
		title string
		want  bool
	}{
		{"redis-server 127.0.0.1:6379", true}, {"/usr/bin/redis-server *:6379", true},
		{"redis-server 127.0.0.1:16379", false}, {"redis-cli -p 6379", false},
	} {
		if got := redisServerAt(c.title, "6379"); got != c.want {
			t.Errorf("redisServerAt(%q) = %v", c.title, got)
		}
	}
	if p := redisPort("redis://127.0.0.1:7000/0"); p != "7000" {
		t.Errorf("redisPort = %s", p)
	}
	if p := redisPort("redis://localhost/0"); p != "6379" {
		t.Errorf("redisPort without a port = %s", p)
	}
}

func TestUsedAndPerRequest(t *testing.T) {
	before := cpuSample{procs: map[string]map[int]float64{
		"server": {10: 5.0}, "postgres": {20: 1.0, 21: 2.0}, "redis": {30: 7.0},
	}, machine: 100}
	after := cpuSample{procs: map[string]map[int]float64{
		// 21 ended (not counted), 22 started (counts from 0), 30 reused
		// by a new process (counts from 0).
		"server": {10: 6.5}, "postgres": {20: 1.5, 22: 0.25}, "redis": {30: 0.5},
	}, machine: 104}
	u := used(before, after)
	for k, want := range map[string]float64{"server": 1.5, "postgres": 0.75, "redis": 0.5, "machine": 4} {
		if math.Abs(u[k]-want) > 1e-9 {
			t.Errorf("used[%s] = %v, want %v", k, u[k], want)
		}
	}
	c := perRequest(u, 1000, 2)
	if math.Abs(c.Server-1.5) > 1e-9 || math.Abs(c.Postgres-0.75) > 1e-9 || math.Abs(c.Redis-0.5) > 1e-9 || math.Abs(c.Total-2.75) > 1e-9 {
		t.Errorf("perRequest = %+v, want 1.5/0.75/0.5 ms, total 2.75 ms", c)
	}
	if n := cpuCount(); n > 0 && math.Abs(c.MachineBusy-200/float64(n)) > 1e-9 {
		t.Errorf("machine busy = %v %%, want %v %%", c.MachineBusy, 200/float64(n))
	}
	if c := perRequest(u, 0, 2); c.Total != 0 {
		t.Errorf("perRequest of no request = %+v", c)
	}
}

// The meter counts the test's process as a server and the backends of a
// database of its own on the real PostgreSQL, not the others.
func TestMeter(t *testing.T) {
	ctx := context.Background()
	admin := envOr("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable")
	var b [4]byte
	_, _ = rand.Read(b[:])
	name := "bench_cputest_" + hex.EncodeToString(b[:])
	url, err := createDatabase(ctx, admin, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := dropDatabase(context.Background(), admin, name); err != nil {
			t.Error(err)
		}
	})
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)

	m := cpuMeter{pids: map[string][]int{"server": {os.Getpid()}}, database: name, redisPort: "1"}
	s0 := m.sample()
	if len(s0.procs["postgres"]) != 1 {
		t.Fatalf("backends of %s found: %v, want 1", name, s0.procs["postgres"])
	}
	if len(s0.procs["redis"]) != 0 {
		t.Errorf("a redis-server at port 1 found: %v", s0.procs["redis"])
	}
	_ = burn(t, 200*time.Millisecond)
	var sum int64
	if err := conn.QueryRow(ctx, "SELECT sum(i) FROM generate_series(1, 4000000) i").Scan(&sum); err != nil {
		t.Fatal(err)
	}
	u := used(s0, m.sample())
	if u["server"] < 0.15 {
		t.Errorf("server CPU %.3f s over 200 ms of CPU burnt", u["server"])
	}
	if u["postgres"] < 0.1 {
		t.Errorf("PostgreSQL CPU %.3f s for a sum over 4,000,000 rows", u["postgres"])
	}
	if u["machine"] < u["server"]+u["postgres"]-0.05 {
		t.Errorf("machine CPU %.3f s < server %.3f + postgres %.3f", u["machine"], u["server"], u["postgres"])
	}
}
