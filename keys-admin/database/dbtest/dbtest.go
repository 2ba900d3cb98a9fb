// Package dbtest gives tests a fresh, migrated-nothing database on each
// backend: a PostgreSQL schema of its own (SVC_TEST_DATABASE_URL) or a SQLite
// file in a temporary directory. A test that needs PostgreSQL fails, never
// skips, when the server cannot be reached, with a message saying how to
// start it.
package dbtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/adsnap/svc/keys-admin/database"
	"github.com/uptrace/bun"
)

// DefaultPostgresURL is used when SVC_TEST_DATABASE_URL is unset (DESIGN §7).
const DefaultPostgresURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// Backend is one database a test runs on.
type Backend struct {
	Name string // "postgres" or "sqlite"
	URL  string // a URL database.Open accepts, pointing at this test's own schema or file
	DB   *bun.DB
	// Handle is DB with, on PostgreSQL, its pgx pool.
	Handle *database.DB
}

// PostgresURL returns the base URL of the test server.
func PostgresURL() string {
	if u := os.Getenv("SVC_TEST_DATABASE_URL"); u != "" {
		return u
	}
	return DefaultPostgresURL
}

// Postgres returns a connection to a new, empty schema, dropped when the test
// ends. With -short (make release-check) the test is skipped: make test runs it.
func Postgres(t testing.TB) Backend {
	t.Helper()
	if testing.Short() {
		// make release-check runs the short tests; make test runs them all.
		t.Skip("PostgreSQL tests do not run with -short")
	}
	ctx := context.Background()
	base := PostgresURL()
	admin, err := database.Open(ctx, base, database.Options{MaxOpenConns: 2})
	if err != nil {
		t.Fatalf("PostgreSQL is required for this test and is not reachable at %s: %v\n"+
			"Start it with `scripts/services.sh` (make test does this), or set SVC_TEST_DATABASE_URL.",
			database.Redact(base), err)
	}
	schema := "t_" + randomHex(8)
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		admin.Close()
		t.Fatalf("create test schema: %v", err)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	h, err := database.Connect(ctx, u.String(), database.Options{})
	if err != nil {
		t.Fatalf("open test schema: %v", err)
	}
	db := h.Bun
	t.Cleanup(func() {
		db.Close()
		cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(cctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop test schema %s: %v", schema, err)
		}
		admin.Close()
	})
	return Backend{Name: "postgres", URL: u.String(), DB: db, Handle: h}
}

// SQLite returns a connection to a new database file in a temporary directory.
func SQLite(t testing.TB) Backend {
	t.Helper()
	rawURL := "sqlite:" + filepath.Join(t.TempDir(), "test.db")
	h, err := database.Connect(context.Background(), rawURL, database.Options{})
	if err != nil {
		t.Fatalf("open sqlite: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	return Backend{Name: "sqlite", URL: rawURL, DB: h.Bun, Handle: h}
}

// Each runs f as a parallel subtest on PostgreSQL and on SQLite, each with a
// fresh database, after applying migrate to it (if not nil).
func Each(t *testing.T, migrate func(context.Context, *bun.DB) error, f func(t *testing.T, b Backend)) {
	t.Helper()
	backends := []struct {
		name string
		open func(testing.TB) Backend
	}{{"postgres", Postgres}, {"sqlite", SQLite}}
	for _, bk := range backends {
		open := bk.open
		t.Run(bk.name, func(t *testing.T) {
			t.Parallel()
			b := open(t)
			if migrate != nil {
				if err := migrate(t.Context(), b.DB); err != nil {
					t.Fatalf("migrate %s: %v", b.Name, err)
				}
			}
			f(t, b)
		})
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
