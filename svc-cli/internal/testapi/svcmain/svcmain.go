// Package svcmain is svc's main for the scenario tests (script_test.go):
// cmd/svc's, with two knobs of the tests only. SVC_TEST_TIMEOUT (a Go
// duration) shortens the 15 s request timeout, SVC_TEST_BACKOFF the waits
// between retries of 503 answers and connection errors. Release binaries
// (cmd/svc) read neither.
package svcmain

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
	"github.com/adsnap/svc/svc-cli/internal/iostreams"
	"github.com/adsnap/svc/svc-cli/internal/svccmd"
)

// Main runs svc with the process's arguments, streams and environment, and
// exits with its code.
func Main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	f := cmdutil.New(iostreams.System())
	if d, err := time.ParseDuration(os.Getenv("SVC_TEST_TIMEOUT")); err == nil && d > 0 {
		f.Timeout = d
	}
	if d, err := time.ParseDuration(os.Getenv("SVC_TEST_BACKOFF")); err == nil && d > 0 {
		f.RetryBackoff = d
	}
	code := svccmd.Run(ctx, f, os.Args[1:])
	stop()
	os.Exit(int(code))
}
