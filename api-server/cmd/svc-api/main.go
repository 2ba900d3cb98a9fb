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

func main() {
	if os.Getenv("GOGC") == "" && len(os.Args) > 1 && os.Args[1] == "serve" {
		debug.SetGCPercent(serveGCPercent)
	}
	os.Exit(cli.Main())
}
