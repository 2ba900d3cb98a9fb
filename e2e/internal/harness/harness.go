// Package harness builds the project's binaries and runs them as black
// boxes: fresh PostgreSQL databases, server processes with captured logs, TCP
// proxies in front of PostgreSQL and Redis, and canary checks.
package harness

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Defaults of DESIGN §7.
const (
	DefaultPostgresURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	DefaultRedisURL    = "redis://127.0.0.1:6379/0"
)

// PostgresURL is the test server's URL (SVC_TEST_DATABASE_URL or the default).
func PostgresURL() string {
	if u := os.Getenv("SVC_TEST_DATABASE_URL"); u != "" {
		return u
	}
	return DefaultPostgresURL
}

// RedisURL is the test Redis URL (SVC_TEST_REDIS_URL or the default).
func RedisURL() string {
	if u := os.Getenv("SVC_TEST_REDIS_URL"); u != "" {
		return u
	}
	return DefaultRedisURL
}

// RepoRoot is the repository root (the parent of the e2e module).
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}

// Binaries are the built executables.
type Binaries struct {
	Dir                 string
	API, CLI, KeysAdmin string
}

// Build compiles svc-api, svc and keys-admin into dir: the first two with
// scripts/build-static.sh, svc with `go build`.
func Build(dir string) (Binaries, error) {
	b := Binaries{
		Dir:       dir,
		API:       filepath.Join(dir, "svc-api"),
		CLI:       filepath.Join(dir, "svc"),
		KeysAdmin: filepath.Join(dir, "keys-admin"),
	}
	root := RepoRoot()
	// svc-api and keys-admin are the container image's binaries, built by
	// the script deploy/Dockerfile and `make build-static` run (static,
	// CGO_ENABLED=0, -trimpath, stripped), so the suite tests those.
	cmd := exec.Command(filepath.Join(root, "scripts", "build-static.sh"), dir)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return b, fmt.Errorf("scripts/build-static.sh: %v\n%s", err, out)
	}
	for _, t := range []struct{ module, pkg, out string }{
		{"svc-cli", "./cmd/svc", b.CLI},
	} {
		cmd := exec.Command("go", "build", "-o", t.out, t.pkg)
		cmd.Dir = filepath.Join(root, t.module)
		if out, err := cmd.CombinedOutput(); err != nil {
			return b, fmt.Errorf("build %s: %v\n%s", t.module, err, out)
		}
	}
	return b, nil
}

// RandomHex returns n random bytes in hex.
func RandomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// FreshDatabase creates a new PostgreSQL database and returns its URL and a
// function that drops it. It fails with a message saying how to start
// PostgreSQL when the server is unreachable.
func FreshDatabase(ctx context.Context) (string, func(), error) {
	base := PostgresURL()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return "", nil, fmt.Errorf("PostgreSQL is required and not reachable (%v); start it with scripts/services.sh (make test does), or set SVC_TEST_DATABASE_URL", err)
	}
	name := "e2e_" + RandomHex(6)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		conn.Close(ctx)
		return "", nil, fmt.Errorf("create database: %w", err)
	}
	u, _ := url.Parse(base)
	u.Path = "/" + name
	drop := func() {
		dctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn.Exec(dctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") //nolint:errcheck
		conn.Close(dctx)
	}
	return u.String(), drop, nil
}

// FreePort returns a loopback port that was free a moment ago.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// SyncBuffer is a bytes.Buffer safe for concurrent writes and reads.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Run runs a binary to completion with env added, returning stdout, stderr
// and the exit code.
func Run(ctx context.Context, bin string, env []string, stdin string, args ...string) (stdout, stderr string, code int, err error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return o.String(), e.String(), ee.ExitCode(), nil
	}
	return o.String(), e.String(), 0, err
}
