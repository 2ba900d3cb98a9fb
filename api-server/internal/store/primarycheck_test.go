package store_test

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
)

// TestCheckPrimary (issue 36) on real PostgreSQL, with a role of the test's
// own so that nothing of the shared server changes:
//   - connections of the pool that became read-only (as connections to an
//     old primary do when an operator fences it) are closed, and the check
//     passes when new connections reach a writable server (what a
//     multi-host URL with target_session_attrs=read-write gives);
//   - when new connections are read-only too (a single-host URL naming the
//     fenced server: the role's default_transaction_read_only here), the
//     check fails with ErrNotPrimary: /readyz is not ready.
func TestCheckPrimary(t *testing.T) {
	b := dbtest.Postgres(t)
	ctx := t.Context()
	testenv.Seed(t, b.DB, time.Now().UTC())
	role := "fence_" + strings.ReplaceAll(strings.TrimPrefix(testenv.Namespace(), "test-"), "-", "_")
	for _, q := range []string{"CREATE ROLE " + role + " LOGIN", "GRANT USAGE ON SCHEMA " + schemaOf(t, b.URL) + " TO " + role} {
		if _, err := b.DB.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _, _ = b.DB.ExecContext(ctx, "DROP ROLE IF EXISTS "+role) })
	u, err := url.Parse(b.URL)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	db, err := database.Connect(ctx, u.String(), database.Options{MaxOpenConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.New(ctx, db)
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close(); db.Close() })
	if err := st.CheckPrimary(ctx); err != nil {
		t.Fatalf("a writable primary: %v", err)
	}

	// Read-only sessions (fenced under them), new ones writable.
	var conns int
	for _, c := range db.Pool.AcquireAllIdle(ctx) {
		if _, err := c.Exec(ctx, "SET default_transaction_read_only = on"); err != nil {
			t.Fatal(err)
		}
		c.Release()
		conns++
	}
	if conns == 0 {
		t.Fatal("no idle connection to make read-only")
	}
	if err := st.CheckPrimary(ctx); err != nil {
		t.Fatalf("read-only connections, a writable server behind them: %v, want them replaced and no error", err)
	}
	for _, c := range db.Pool.AcquireAllIdle(ctx) {
		var ro string
		err := c.QueryRow(ctx, "SHOW transaction_read_only").Scan(&ro)
		c.Release()
		if err != nil || ro != "off" {
			t.Fatalf("a connection left in the pool: transaction_read_only %q %v, want every read-only one closed", ro, err)
		}
	}

	// WatchPrimary does the same in the background, on idle connections.
	for _, c := range db.Pool.AcquireAllIdle(ctx) {
		if _, err := c.Exec(ctx, "SET default_transaction_read_only = on"); err != nil {
			t.Fatal(err)
		}
		c.Release()
	}
	wctx, stop := context.WithCancel(ctx)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		st.WatchPrimary(wctx, 50*time.Millisecond, time.Second, slog.New(slog.DiscardHandler))
	}()
	readOnly := func() int {
		n := 0
		for _, c := range db.Pool.AcquireAllIdle(ctx) {
			var ro string
			if err := c.QueryRow(ctx, "SHOW transaction_read_only").Scan(&ro); err != nil || ro != "off" {
				n++
			}
			c.Release()
		}
		return n
	}
	left := -1
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if left = readOnly(); left == 0 {
			break
		}
	}
	stop()
	<-watched
	if left != 0 {
		t.Fatalf("WatchPrimary left %d read-only connections in the pool after 3 s", left)
	}

	// Every new session read-only: the server is fenced for this role.
	if _, err := b.DB.ExecContext(ctx, "ALTER ROLE "+role+" SET default_transaction_read_only = on"); err != nil {
		t.Fatal(err)
	}
	db.Pool.Reset() // the sessions opened before the ALTER keep their setting
	if err := st.CheckPrimary(ctx); !errors.Is(err, store.ErrNotPrimary) {
		t.Fatalf("a read-only server: %v, want ErrNotPrimary", err)
	}
	if err := st.Ready(ctx); !errors.Is(err, store.ErrNotPrimary) {
		t.Fatalf("Ready on a read-only server: %v, want ErrNotPrimary", err)
	}
}

// schemaOf is the test schema in a dbtest URL (its search_path).
func schemaOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("search_path")
}
