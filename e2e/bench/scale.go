package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// runScale is `bench scale` (make bench-scale, issue #16): req/s and p99
// through HAProxy in front of 1, 2 and 3 svc-api replicas, in one run on
// one database (BENCH_SCALE_ROWS insight rows, default 100000) and one
// Redis, with where the CPU went during each load (from /proc: the
// replicas, PostgreSQL, Redis, HAProxy, wrk, and the machine). It prints a
// Markdown table with the ratio to one replica. Settings: BENCH_DATABASE_URL,
// BENCH_REDIS_URL, BENCH_DURATION, BENCH_CONNECTIONS as for `bench`.
//
// On a machine whose cores are all busy the curve is flat: the table says
// which process took the CPU, so that a run on a bigger machine tells
// whether the replicas or a shared dependency is the limit.
func runScale() error {
	s, err := loadSettings()
	if err != nil {
		return err
	}
	rows, err := strconv.Atoi(envOr("BENCH_SCALE_ROWS", "100000"))
	if err != nil || rows < genOrgs {
		return fmt.Errorf("BENCH_SCALE_ROWS: want an integer ≥ %d", genOrgs)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	defer stopAll()
	for _, bin := range []string{"wrk", "haproxy"} {
		if _, err := exec.LookPath(bin); err != nil {
			return fmt.Errorf("%s is not installed (scripts/bench.sh installs wrk, scripts/test-deps.sh haproxy)", bin)
		}
	}
	tmp, err := os.MkdirTemp("", "svc-bench-scale-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var b [4]byte
	_, _ = rand.Read(b[:])
	runID := hex.EncodeToString(b[:])
	bins := map[string]string{}
	for _, x := range []struct{ name, dir, pkg string }{
		{"svc-api", "api-server", "./cmd/svc-api"},
		{"keys-admin", "keys-admin", "./cmd/keys-admin"},
	} {
		bin := filepath.Join(tmp, x.name)
		cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, x.pkg)
		cmd.Dir = filepath.Join(s.root, x.dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("build %s: %w\n%s", x.name, err, out)
		}
		bins[x.name] = bin
	}
	dbName := fmt.Sprintf("bench_%s_scale", runID)
	url, err := createDatabase(ctx, s.adminURL, dbName)
	if err != nil {
		return err
	}
	if !s.keep {
		defer func() { _ = dropDatabase(context.WithoutCancel(ctx), s.adminURL, dbName) }()
	}
	if out, err := exec.CommandContext(ctx, bins["svc-api"], "migrate", "--database-url", url).CombinedOutput(); err != nil {
		return fmt.Errorf("migrate: %w\n%s", err, out)
	}
	today := time.Now().UTC().Truncate(24 * time.Hour)
	if err := generate(ctx, url, rows, today); err != nil {
		return fmt.Errorf("generate %d rows: %w", rows, err)
	}
	keyOut, err := exec.CommandContext(ctx, bins["keys-admin"], "create", "--database-url", url, "--org", orgID(0),
		"--user", ownerID(0), "--scopes", "accounts:read,campaigns:read,insights:read", "--expires-in-days", "7",
		"--name", "bench-scale").Output()
	if err != nil {
		return fmt.Errorf("keys-admin create: %w", err)
	}
	key := strings.TrimSpace(string(keyOut))

	var backends []string
	var replicas []*proc
	for i := range 3 {
		port, err := freePort()
		if err != nil {
			return err
		}
		listen := "127.0.0.1:" + strconv.Itoa(port)
		env := []string{"SVC_DATABASE_URL=" + url, "SVC_REDIS_URL=" + s.redisURL, "SVC_REDIS_NAMESPACE=bench_" + runID,
			"SVC_LISTEN_ADDR=" + listen, "SVC_TRUSTED_PROXIES=127.0.0.1", "SVC_LIMIT_KEY_PER_MINUTE=100000000",
			"SVC_LIMIT_ORG_PER_MINUTE=100000000", "SVC_LIMIT_IP_PER_MINUTE=100000000", "SVC_LOG_LEVEL=warn",
			"SVC_DATABASE_MAX_CONNS=" + envOr("BENCH_SCALE_DB_CONNS", "10")}
		p, _, err := start(tmp, "svc-api-"+strconv.Itoa(i), env, bins["svc-api"], "serve")
		if err != nil {
			return err
		}
		if err := waitReady(ctx, p, "http://"+listen+"/readyz"); err != nil {
			return err
		}
		replicas = append(replicas, p)
		backends = append(backends, listen)
	}
	path := endpoints(today, 0)[0].Path
	type row struct {
		n   int
		r   loadResult
		cpu map[string]float64 // share of one core, by process kind
	}
	var table []row
	for n := 1; n <= 3; n++ {
		lbPort, err := freePort()
		if err != nil {
			return err
		}
		cfg := filepath.Join(tmp, "haproxy.cfg")
		var c strings.Builder
		fmt.Fprintf(&c, "global\n  maxconn 4000\ndefaults\n  mode http\n  timeout connect 1s\n  timeout client 20s\n  timeout server 16s\n"+
			"  option forwardfor\n  http-reuse always\nfrontend api\n  bind 127.0.0.1:%d\n  default_backend r\nbackend r\n  balance roundrobin\n", lbPort)
		for i, be := range backends[:n] {
			fmt.Fprintf(&c, "  server r%d %s\n", i, be)
		}
		if err := os.WriteFile(cfg, []byte(c.String()), 0o600); err != nil {
			return err
		}
		lb, _, err := start(tmp, "haproxy", nil, "haproxy", "-db", "-f", cfg)
		if err != nil {
			return err
		}
		base := "http://127.0.0.1:" + strconv.Itoa(lbPort)
		if err := waitReady(ctx, lb, base+"/healthz"); err != nil {
			return err
		}
		if _, err := wrk(ctx, base+path, key, s.conns, 2*time.Second); err != nil { // warm-up
			return err
		}
		before, t0 := cpuByKind(replicas[:n], lb), time.Now()
		r, err := wrk(ctx, base+path, key, s.conns, s.duration)
		if err != nil {
			return err
		}
		cpu := cores(before, cpuByKind(replicas[:n], lb), time.Since(t0).Seconds())
		fmt.Fprintf(os.Stderr, "bench scale: %d replica(s): %.0f req/s, p99 %.2f ms, errors %d\n", n, r.RPS, r.P99, r.Errors)
		table = append(table, row{n, r, cpu})
		lb.stop()
	}
	host, _ := os.Hostname()
	fmt.Printf("\n### Scale: svc-api replicas behind HAProxy (%s, %d CPUs, %d insight rows, wrk c=%d for %s, /insights offset 0)\n\n",
		host, cpuCount(), rows, s.conns, s.duration)
	fmt.Println("| replicas | req/s | ratio to 1 | p99 ms | errors | machine CPU | svc-api | PostgreSQL | Redis | HAProxy | wrk and others | bottleneck |")
	fmt.Println("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
	for _, t := range table {
		fmt.Printf("| %d | %.0f | %.2f | %s | %d | %.0f%% of %d cores | %.2f | %.2f | %.2f | %.2f | %.2f | %s |\n",
			t.n, t.r.RPS, t.r.RPS/table[0].r.RPS, ms(t.r.P99), t.r.Errors, 100*t.cpu["machine"]/float64(cpuCount()), cpuCount(),
			t.cpu["svc-api"], t.cpu["postgres"], t.cpu["redis"], t.cpu["haproxy"], t.cpu["other"], bottleneck(t.cpu))
	}
	fmt.Println("\nCPU columns are cores used on average during the measured load (1.00 = one core), from /proc;" +
		" PostgreSQL and Redis count every process of theirs on the machine, other users' included;" +
		" \"wrk and others\" is the rest of the machine's CPU (the load generator and anything else running).")
	return nil
}

// bottleneck names where the load's CPU went: the machine when its cores
// are (nearly) all busy, with the process kind that took the most.
func bottleneck(cpu map[string]float64) string {
	top, topV := "", -1.0
	for _, k := range []string{"svc-api", "postgres", "redis", "haproxy", "other"} {
		if cpu[k] > topV {
			top, topV = k, cpu[k]
		}
	}
	if cpu["machine"] >= 0.9*float64(cpuCount()) {
		return fmt.Sprintf("CPU: all %d cores busy (most: %s)", cpuCount(), top)
	}
	return "not CPU-bound; most CPU: " + top
}

// clkTck is the kernel's USER_HZ, which /proc/*/stat counts in (100 on
// Linux for every architecture Go supports here).
const clkTck = 100.0

// cpuSample is the CPU seconds used so far by each process of interest
// (by kind and PID) and by the machine.
type cpuSample struct {
	procs   map[string]map[int]float64
	machine float64
}

// cpuByKind samples the CPU seconds of the replicas, haproxy (lb), every
// postgres and redis-server process of the machine, and the machine as a
// whole (/proc/stat, all but idle, iowait and guest time).
func cpuByKind(replicas []*proc, lb *proc) cpuSample {
	s := cpuSample{procs: map[string]map[int]float64{"svc-api": {}, "haproxy": {}, "postgres": {}, "redis": {}}}
	for _, p := range replicas {
		s.procs["svc-api"][p.cmd.Process.Pid] = procCPU(p.cmd.Process.Pid)
	}
	s.procs["haproxy"][lb.cmd.Process.Pid] = procCPU(lb.cmd.Process.Pid)
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, _ := os.ReadFile("/proc/" + e.Name() + "/comm")
		switch strings.TrimSpace(string(comm)) {
		case "postgres":
			s.procs["postgres"][pid] = procCPU(pid)
		case "redis-server":
			s.procs["redis"][pid] = procCPU(pid)
		}
	}
	if b, err := os.ReadFile("/proc/stat"); err == nil {
		f := strings.Fields(strings.SplitN(string(b), "\n", 2)[0])
		for i, v := range f[1:] {
			if i == 3 || i == 4 || i >= 8 { // idle, iowait; guest time is in user already
				continue
			}
			n, _ := strconv.ParseFloat(v, 64)
			s.machine += n / clkTck
		}
	}
	return s
}

// cores returns the cores used on average between two samples, el seconds
// apart, by kind: a process that ended between them is not counted (its
// last figures are unknown), one that started counts from zero. "other"
// is the rest of the machine's CPU: wrk (which runs and exits between the
// samples) and everything else on the machine.
func cores(before, after cpuSample, el float64) map[string]float64 {
	out := map[string]float64{}
	sum := 0.0
	for kind, ps := range after.procs {
		for pid, v := range ps {
			d := v - before.procs[kind][pid]
			if d < 0 { // a new process reusing a PID
				d = v
			}
			out[kind] += d / el
		}
		sum += out[kind]
	}
	out["machine"] = (after.machine - before.machine) / el
	out["other"] = max(out["machine"]-sum, 0)
	return out
}

// procCPU is a process's user and system CPU seconds (/proc/PID/stat).
func procCPU(pid int) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command may hold spaces
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(f[11], 64) // utime (field 14)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (u + st) / clkTck
}
