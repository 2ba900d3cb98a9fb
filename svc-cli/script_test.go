package svccli_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
	"github.com/adsnap/svc/svc-cli/internal/iostreams"
	"github.com/adsnap/svc/svc-cli/internal/svccmd"
	"github.com/adsnap/svc/svc-cli/internal/testapi"
)

// TestMain makes the test binary double as the svc command of the scripts
// (testscript.Main puts it in their PATH as "svc"), so that no binary is
// built: `exec svc …` runs svcMain in a process of its own.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"svc": svcMain})
}

// svcMain is svc's main with the process's streams and environment, as
// cmd/svc runs it, and two knobs of the scripts only: SVC_TEST_TIMEOUT (a Go
// duration) shortens the 15 s request timeout, SVC_TEST_BACKOFF the waits
// between retries of 503 answers and connection errors.
func svcMain() {
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

// TestScripts runs the scenarios in testdata/script against svc
// and a stand-in API (internal/testapi). Scripts see:
//
//	$API       the API's site URL; a path prefix picks a route ($API/slow)
//	$KEY       a key the API accepts
//	$OTHERKEY  a well-formed key the API refuses (401)
//	$CLOSED    a loopback site URL where nothing listens
//	key.txt    in $WORK: "  $KEY \r\n" and a second line
//	svc        the command (this test binary: see TestMain)
//
// and the command `exitcode N prog args...`, which runs prog and checks that
// it exits with N (stdout and stderr are kept for the next checks).
func TestScripts(t *testing.T) {
	t.Parallel()
	api := testapi.New()
	t.Cleanup(api.Close)
	closed := testapi.New()
	closedURL := closed.URL
	closed.Close()

	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("API", api.URL)
			env.Setenv("KEY", testapi.Key)
			env.Setenv("OTHERKEY", testapi.OtherKey)
			env.Setenv("CLOSED", closedURL)
			// Retries of 503 answers and connection errors wait 1 ms.
			env.Setenv("SVC_TEST_BACKOFF", "1ms")
			// The key with blanks around it and a second line, for --key-stdin.
			return os.WriteFile(filepath.Join(env.WorkDir, "key.txt"), []byte("  "+testapi.Key+" \r\nsecond line\n"), 0o600)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode": exitCode,
		},
		RequireExplicitExec: true,
	})
}

func exitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}
