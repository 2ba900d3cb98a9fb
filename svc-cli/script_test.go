package svccli_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/adsnap/svc/svc-cli/internal/testapi"
	"github.com/adsnap/svc/svc-cli/internal/testapi/svcmain"
)

// TestMain makes the test binary double as the svc command of the scripts
// (testscript.Main puts it in their PATH as "svc"), so that no binary is
// built: `exec svc …` runs svcmain.Main in a process of its own.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"svc": svcmain.Main})
}

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// svcBinary returns a directory holding svc built without the race
// detector, built once. Under -race the test binary itself is instrumented,
// and the scripts' hundred runs of it, one reading 10,150 rows, take
// several times as long; the race detector watches the command in the
// command tests and in e2e instead.
func svcBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "svc-cli-bin-"); buildErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, "svc"), "./internal/testapi/svcmain/svc").CombinedOutput()
		if err != nil {
			buildErr = errors.New("go build: " + err.Error() + "\n" + string(out))
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	t.Cleanup(func() { os.RemoveAll(binDir) })
	return binDir
}

// TestScripts runs the scenarios in testdata/script against svc
// and a stand-in API (internal/testapi). Scripts see:
//
//	$API       the API's site URL; a path prefix picks a route ($API/slow)
//	$KEY       a key the API accepts
//	$OTHERKEY  a well-formed key the API refuses (401)
//	$CLOSED    a loopback site URL where nothing listens
//	key.txt    in $WORK: "  $KEY \r\n" and a second line
//	svc        the command (this test binary, see TestMain; under -race a
//	           build of svcmain without the race detector)
//
// and the command `exitcode N prog args...`, which runs prog and checks that
// it exits with N (stdout and stderr are kept for the next checks).
func TestScripts(t *testing.T) {
	t.Parallel()
	bin := ""
	if race {
		bin = svcBinary(t)
	}
	api := testapi.New()
	t.Cleanup(api.Close)
	closed := testapi.New()
	closedURL := closed.URL
	closed.Close()

	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			if bin != "" {
				env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
			}
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
