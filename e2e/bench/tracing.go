package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// runTracing is `bench tracing` (issue #17), which `make bench` runs after
// the main harness: the cost on the request path of svc-api's metrics and
// traces. It fills one small database (BENCH_TRACING_ROWS insight rows,
// default 100000) and measures three svc-api servers on it, one at a time
// and alternating, BENCH_REPEAT runs of BENCH_DURATION each with wrk:
//
//   - off: neither --metrics-addr nor OTEL_* (what the telemetry code costs
//     when nothing asks for it: it is not installed);
//   - metrics: --metrics-addr set (scraped by nobody);
//   - tracing: OTEL_EXPORTER_OTLP_ENDPOINT pointed at a sink in this
//     process, every request sampled (the worst case).
//
// It prints each server's median run and its cost against "off".
func runTracing() error {
	s, err := loadSettings()
	if err != nil {
		return err
	}
	rows, err := strconv.Atoi(envOr("BENCH_TRACING_ROWS", "100000"))
	if err != nil || rows < genOrgs {
		return fmt.Errorf("BENCH_TRACING_ROWS: want an integer ≥ %d", genOrgs)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	defer stopAll()
	if _, err := exec.LookPath("wrk"); err != nil {
		return fmt.Errorf("wrk is not installed (scripts/bench.sh installs it with apt-get)")
	}
	tmp, err := os.MkdirTemp("", "svc-bench-tracing-")
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
	dbName := fmt.Sprintf("bench_%s_tracing", runID)
	url, err := createDatabase(ctx, s.adminURL, dbName)
	if err != nil {
		return err
	}
	if !s.keep {
		defer func() {
			if err := dropDatabase(context.WithoutCancel(ctx), s.adminURL, dbName); err != nil {
				fmt.Fprintf(os.Stderr, "bench: drop %s: %v\n", dbName, err)
			}
		}()
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
		"--name", "bench-tracing").Output()
	if err != nil {
		return fmt.Errorf("keys-admin create: %w", err)
	}
	key := strings.TrimSpace(string(keyOut))

	// The OTLP sink: accepts every export and throws it away.
	var exports atomic.Int64
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	sink := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		exports.Add(1)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = sink.Serve(ln) }()
	defer sink.Close()

	type server struct {
		name, base string
		p          *proc
	}
	var servers []server
	for _, mode := range []string{"off", "metrics", "tracing"} {
		port, err := freePort()
		if err != nil {
			return err
		}
		listen := "127.0.0.1:" + strconv.Itoa(port)
		env := []string{"SVC_DATABASE_URL=" + url, "SVC_REDIS_URL=" + s.redisURL, "SVC_REDIS_NAMESPACE=bench_" + runID + "_" + mode,
			"SVC_LISTEN_ADDR=" + listen, "SVC_LIMIT_KEY_PER_MINUTE=100000000", "SVC_LIMIT_ORG_PER_MINUTE=100000000",
			"SVC_LIMIT_IP_PER_MINUTE=100000000", "SVC_LOG_LEVEL=warn", "SVC_METRICS_ADDR=", "OTEL_EXPORTER_OTLP_ENDPOINT=",
			"OTEL_TRACES_EXPORTER="}
		switch mode {
		case "metrics":
			mport, err := freePort()
			if err != nil {
				return err
			}
			env = append(env, "SVC_METRICS_ADDR=127.0.0.1:"+strconv.Itoa(mport))
		case "tracing":
			env = append(env, "OTEL_EXPORTER_OTLP_ENDPOINT=http://"+ln.Addr().String())
		}
		p, _, err := start(tmp, "svc-api-"+mode, env, bins["svc-api"], "serve")
		if err != nil {
			return err
		}
		defer p.stop()
		if err := waitReady(ctx, p, "http://"+listen+"/readyz"); err != nil {
			return err
		}
		servers = append(servers, server{mode, "http://" + listen, p})
	}

	eps := append(endpoints(today, 0), listEndpoints()[0])
	fmt.Printf("\n## Telemetry on the request path (%d rows, wrk c=%d, %s × %d, median run)\n\n", rows, s.conns, s.duration, s.repeat)
	fmt.Println("| endpoint | mode | req/s | p50 ms | p99 ms | errors | req/s vs off | p99 vs off |")
	fmt.Println("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, ep := range eps {
		runs := map[string][]loadResult{}
		for _, sv := range servers { // warm-up, not counted
			if _, err := wrk(ctx, sv.base+ep.Path, key, s.conns, 2*time.Second); err != nil {
				return err
			}
		}
		for range s.repeat {
			for _, sv := range servers {
				r, err := wrk(ctx, sv.base+ep.Path, key, s.conns, s.duration)
				if err != nil {
					return err
				}
				fmt.Fprintf(os.Stderr, "bench: %-8s %-20s %8.0f req/s  p50 %6.2f ms  p99 %6.2f ms  errors %d\n",
					sv.name, ep.Name, r.RPS, r.P50, r.P99, r.Errors)
				runs[sv.name] = append(runs[sv.name], r)
			}
		}
		off := median(runs["off"])
		for _, sv := range servers {
			r := median(runs[sv.name])
			fmt.Printf("| %s | %s | %.0f | %s | %s | %d | %+.1f %% | %+.1f %% |\n", ep.Name, sv.name, r.RPS, ms(r.P50), ms(r.P99), r.Errors,
				100*(r.RPS/off.RPS-1), 100*(r.P99/off.P99-1))
		}
	}
	fmt.Printf("\nOTLP exports received by the sink: %d. A negative req/s change is a cost.\n", exports.Load())
	return nil
}
