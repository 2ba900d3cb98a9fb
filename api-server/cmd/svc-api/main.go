// Command svc-api is the read-only snapshot API server: serve, migrate,
// import, demo and version. Run svc-api --help.
package main

import (
	"os"
	"runtime/debug"

	"github.com/adsnap/svc/api-server/internal/cli"
)

// serveGCPercent is the garbage collector's target of `svc-api serve` when
// the operator has not set GOGC (which, when set, wins): the heap is small
// and short-lived (one page per request), and 200% instead of Go's 100%
// halves the collector's share of CPU under load (about 9% in profiles) for
// a few MB of RSS. The other commands run with Go's default.
const serveGCPercent = 200

// serveMemoryLimit is the soft memory limit of `svc-api serve` when the
// operator has not set GOMEMLIMIT (which, when set, wins): with GOGC at
// 200 the heap may grow to three times what is live, and under load that
// peak, not the live heap (about 6 MB in the benchmark), set the process's
// peak RSS (59–62 MB at /accounts, issue 21 targets ≤ 60 MB; about 30 MB
// of it is the binary's mapped pages). With a limit the collector runs
// earlier only when the runtime's memory nears it: peak RSS 59 MB at
// 28 MiB, 55 MB at 24 MiB, 51 MB at 20 MiB, CPU per request within the
// machine's noise (measured back to back). 24 MiB leaves the heap about
// three times its live size, as GOGC=200 meant. A live heap near the
// limit makes the collector run more often (the runtime caps it at about
// half the CPU); raise GOMEMLIMIT for such a deployment.
const serveMemoryLimit = 24 << 20

func main() {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		if os.Getenv("GOGC") == "" {
			debug.SetGCPercent(serveGCPercent)
		}
		if os.Getenv("GOMEMLIMIT") == "" {
			debug.SetMemoryLimit(serveMemoryLimit)
		}
	}
	os.Exit(cli.Main())
}
