package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
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
	ctx, r, done, err := setUp("svc-bench-tracing-", []string{"wrk"}, "svc-api", "keys-admin")
	defer done()
	if err != nil {
		return err
	}
	s := r.s
	rows, err := strconv.Atoi(envOr("BENCH_TRACING_ROWS", "100000"))
	if err != nil || rows < genOrgs {
		return fmt.Errorf("BENCH_TRACING_ROWS: want an integer ≥ %d", genOrgs)
	}
	db, drop, err := r.database(ctx, "tracing", rows)
	defer drop()
	if err != nil {
		return err
	}

	// The OTLP sink: accepts every export and throws it away.
	var exports atomic.Int64
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	sink := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.Copy(io.Discard, req.Body)
		exports.Add(1)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = sink.Serve(ln) }()
	defer sink.Close()

	var servers []server
	for _, mode := range []string{"off", "metrics", "tracing"} {
		env := []string{"SVC_REDIS_NAMESPACE=bench_" + r.runID + "_" + mode, "SVC_LOG_LEVEL=warn", "SVC_METRICS_ADDR=",
			"OTEL_EXPORTER_OTLP_ENDPOINT=", "OTEL_TRACES_EXPORTER="}
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
		sv, err := r.startAPI(ctx, "svc-api-"+mode, db, env...)
		if err != nil {
			return err
		}
		sv.name = mode
		servers = append(servers, sv)
	}

	eps := append(endpoints(r.today, 0), listEndpoints()[0])
	fmt.Printf("\n## Telemetry on the request path (%d rows, wrk c=%d, %s × %d, median run)\n\n", rows, s.conns, s.duration, s.repeat)
	fmt.Println("| endpoint | mode | req/s | p50 ms | p99 ms | errors | CPU ms/req (svc-api + PostgreSQL + Redis) | req/s vs off | p99 vs off |")
	fmt.Println("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, ep := range eps {
		m, err := r.measure(ctx, servers, db, ep, "tracing")
		if err != nil {
			return err
		}
		off := m["off"]
		for _, sv := range servers {
			x := m[sv.name]
			fmt.Printf("| %s | %s | %.0f | %s | %s | %d | %.3f | %+.1f %% | %+.1f %% |\n", ep.Name, sv.name, x.RPS, ms(x.P50), ms(x.P99), x.Errors,
				x.CPU.Total, 100*(x.RPS/off.RPS-1), 100*(x.P99/off.P99-1))
		}
	}
	fmt.Printf("\nOTLP exports received by the sink: %d. A negative req/s change is a cost.\n", exports.Load())
	return nil
}
