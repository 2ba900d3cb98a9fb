// Command bench is the performance harness behind `make bench`.
//
// It builds svc-api, keys-admin and svc, creates a dedicated PostgreSQL
// database per table size (bench_<run>_<rows>), fills it through the
// project's own migrations with generated accounts, campaigns and insights
// (COPY, then VACUUM ANALYZE), and loads two servers on loopback from a
// second process (wrk, c=64, bounded in time):
//
//   - the baseline: the least code that answers the same list requests from
//     the same tables (net/http + pgx, one query, no auth, no limits), run
//     by this same binary as `bench baseline`;
//   - `svc-api serve` with PostgreSQL, Redis and the full pipeline, a real
//     key, limits raised through its configuration.
//
// Around every measured load run it reads from /proc the CPU (utime+stime)
// of the server under load, of the PostgreSQL backends connected to the
// run's database and of the redis-server at BENCH_REDIS_URL's port, and
// divides it by the run's requests: the CPU one request costs each process
// (cpu.go). It prints a Markdown table (req/s, latency, CPU per request by
// process) with the targets of issue 21 point 7 marked PASS, FAIL or NOT
// RUN, and writes it with a JSON copy and a PNG chart (chart.go,
// gonum.org/v1/plot) under bench/results/. Everything it starts it stops;
// the databases are dropped unless BENCH_KEEP=1. Every mode (this one,
// tracing.go, scale.go) sets up through setup.go.
//
// Settings (environment):
//
//	BENCH_DATABASE_URL  admin URL of the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable)
//	BENCH_REDIS_URL     default redis://127.0.0.1:6379/0
//	BENCH_ROWS          insight rows of the main run (default 1000000)
//	BENCH_SCALE         comma-separated table sizes of the scale run (default 10000,1000000,10000000;
//	                    the 10,000,000-row database takes 3–4 minutes to build and about 8 GB of disk)
//	BENCH_DURATION      length of every measured load run (default 10s)
//	BENCH_REPEAT        measured runs per server and endpoint, alternating between the servers;
//	                    the median run (by req/s) is reported (default 3)
//	BENCH_CONNECTIONS   concurrency (default 64)
//	BENCH_LOG_LEVEL     svc-api's SVC_LOG_LEVEL in the main run (default info)
//	BENCH_KEEP=1        keep the databases
//	BENCH_OUT           results directory (default <repo>/bench/results)
//	BENCH_MODE          all (default: the HTTP runs, then the import run), http, import
//	                    (the import run alone; its settings are in importbench.go), or summary
//	                    (the summary run of summary.go alone, without wrk), or changes
//	                    (the changes feed's run of changes.go alone, without wrk)
//
// `bench tracing` (tracing.go) measures the request path with metrics and
// traces off and on; `make bench` runs it after the main harness.
//
// `bench scale` (make bench-scale) is the scale mode of scale.go instead:
// 1, 2 and 3 svc-api replicas behind HAProxy (BENCH_SCALE_ROWS rows).
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "baseline" {
		if err := runBaseline(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "baseline:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "tracing" {
		if err := runTracing(); err != nil {
			fmt.Fprintln(os.Stderr, "bench tracing:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "scale" {
		if err := runScale(); err != nil {
			fmt.Fprintln(os.Stderr, "bench scale:", err)
			os.Exit(1)
		}
		return
	}
	mode := envOr("BENCH_MODE", "all")
	if mode == "changes" {
		if err := runChangesBench(); err != nil {
			fmt.Fprintln(os.Stderr, "bench changes:", err)
			os.Exit(1)
		}
		return
	}
	if mode == "summary" {
		if err := runSummaryBench(); err != nil {
			fmt.Fprintln(os.Stderr, "bench summary:", err)
			os.Exit(1)
		}
		return
	}
	if mode != "all" && mode != "http" && mode != "import" {
		fmt.Fprintln(os.Stderr, "bench: BENCH_MODE: want all, http, import, summary or changes")
		os.Exit(2)
	}
	if mode != "import" {
		if err := run(); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
	}
	if mode != "http" {
		if err := runImportBench(); err != nil {
			fmt.Fprintln(os.Stderr, "bench import:", err)
			os.Exit(1)
		}
	}
}
