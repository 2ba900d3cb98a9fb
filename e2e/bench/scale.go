package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
	ctx, r, done, err := setUp("svc-bench-scale-", []string{"wrk", "haproxy"}, "svc-api", "keys-admin")
	defer done()
	if err != nil {
		return err
	}
	s := r.s
	rows, err := strconv.Atoi(envOr("BENCH_SCALE_ROWS", "100000"))
	if err != nil || rows < genOrgs {
		return fmt.Errorf("BENCH_SCALE_ROWS: want an integer ≥ %d", genOrgs)
	}
	db, drop, err := r.database(ctx, "scale", rows)
	defer drop()
	if err != nil {
		return err
	}

	var backends []string
	var replicas []int
	for i := range 3 {
		sv, err := r.startAPI(ctx, "svc-api-"+strconv.Itoa(i), db, "SVC_TRUSTED_PROXIES=127.0.0.1", "SVC_LOG_LEVEL=warn",
			"SVC_DATABASE_MAX_CONNS="+envOr("BENCH_SCALE_DB_CONNS", "10"))
		if err != nil {
			return err
		}
		replicas = append(replicas, sv.p.cmd.Process.Pid)
		backends = append(backends, strings.TrimPrefix(sv.base, "http://"))
	}
	path := endpoints(r.today, 0)[0].Path
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
		cfg := filepath.Join(r.tmp, "haproxy.cfg")
		var c strings.Builder
		fmt.Fprintf(&c, "global\n  maxconn 4000\ndefaults\n  mode http\n  timeout connect 1s\n  timeout client 20s\n  timeout server 16s\n"+
			"  option forwardfor\n  http-reuse always\nfrontend api\n  bind 127.0.0.1:%d\n  default_backend r\nbackend r\n  balance roundrobin\n", lbPort)
		for i, be := range backends[:n] {
			fmt.Fprintf(&c, "  server r%d %s\n", i, be)
		}
		if err := os.WriteFile(cfg, []byte(c.String()), 0o600); err != nil {
			return err
		}
		lb, _, err := start(r.tmp, "haproxy", nil, "haproxy", "-db", "-f", cfg)
		if err != nil {
			return err
		}
		base := "http://127.0.0.1:" + strconv.Itoa(lbPort)
		if err := waitReady(ctx, lb, base+"/healthz"); err != nil {
			return err
		}
		if _, err := wrk(ctx, base+path, db.key, s.conns, 2*time.Second); err != nil { // warm-up
			return err
		}
		m := cpuMeter{pids: map[string][]int{"svc-api": replicas[:n], "haproxy": {lb.cmd.Process.Pid}},
			database: db.name, redisPort: redisPort(s.redisURL)}
		res, u, el, err := r.load(ctx, base+path, db.key, s.duration, m)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "bench scale: %d replica(s): %.0f req/s, p99 %.2f ms, errors %d\n", n, res.RPS, res.P99, res.Errors)
		table = append(table, row{n, res, cores(u, el)})
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
		" PostgreSQL is the backends connected to the bench's database, Redis the redis-server at BENCH_REDIS_URL's port;" +
		" \"wrk and others\" is the rest of the machine's CPU (the load generator and anything else running).")
	return nil
}

// cores turns CPU seconds by kind (used) over el seconds into cores used
// on average, with "other": the rest of the machine's CPU (wrk, which runs
// and exits between the samples, and everything else on the machine).
func cores(u map[string]float64, el float64) map[string]float64 {
	out := map[string]float64{}
	sum := 0.0
	for kind, v := range u {
		out[kind] = v / el
		if kind != "machine" {
			sum += v / el
		}
	}
	out["other"] = max(out["machine"]-sum, 0)
	return out
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
