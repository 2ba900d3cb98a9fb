package server_test

import (
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/server"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
)

// TestFencedPrimaryRefusesRequests (issue 40, security review 2): while
// the configured primary is read-only (fenced: a role of the test's own
// whose sessions default to read-only stands for a server fenced with
// default_transaction_read_only), /readyz is 503 and so is every API
// request, where they were served from it; once it accepts writes again,
// both recover.
func TestFencedPrimaryRefusesRequests(t *testing.T) {
	b := dbtest.Postgres(t)
	ctx := t.Context()
	if err := testenv.Migrate(ctx, b.DB); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(b.URL)
	if err != nil {
		t.Fatal(err)
	}
	schema := u.Query().Get("search_path")
	role := "fenced_" + strings.ReplaceAll(strings.TrimPrefix(testenv.Namespace(), "test-"), "-", "_")
	exec := func(q string) {
		t.Helper()
		if _, err := b.DB.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("CREATE ROLE " + role + " LOGIN")
	t.Cleanup(func() {
		_, _ = b.DB.ExecContext(ctx, "DROP OWNED BY "+role)
		_, _ = b.DB.ExecContext(ctx, "DROP ROLE IF EXISTS "+role)
	})
	exec("GRANT USAGE ON SCHEMA " + schema + " TO " + role)
	exec("GRANT SELECT ON ALL TABLES IN SCHEMA " + schema + " TO " + role)
	u.User = url.User(role)
	db, err := database.Connect(ctx, u.String(), database.Options{MaxOpenConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	fenced, err := store.New(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fenced.Close)
	var skew atomic.Int64 // the server's clock ahead of time.Now: /readyz's check is kept a second
	now := func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	e := newEnv(t, b, opts{now: now, wrapStore: func(server.Store) server.Store { return fenced }})
	expect := func(name, path string, code int, body string) {
		t.Helper()
		w := e.get(path, e.all)
		if w.Code != code || !strings.Contains(w.Body.String(), body) {
			t.Errorf("%s: %s %d, want %d with %q: %s", name, path, w.Code, code, body, w.Body.String())
		}
	}
	expect("writable", base+"/accounts", 200, `"data"`)
	// Fenced: new sessions read-only, and the open ones too (as a reload
	// of default_transaction_read_only does).
	exec("ALTER ROLE " + role + " SET default_transaction_read_only = on")
	for _, c := range db.Pool.AcquireAllIdle(ctx) {
		_, err := c.Exec(ctx, "SET default_transaction_read_only = on")
		c.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	expect("fenced, readiness", "/readyz", 503, "unavailable") // it checks: new sessions are read-only
	expect("fenced", base+"/accounts", 503, "the database is unavailable")
	expect("fenced, insights", base+"/insights", 503, "the database is unavailable")
	exec("ALTER ROLE " + role + " RESET default_transaction_read_only")
	skew.Add(int64(2 * time.Second))
	expect("writable again, readiness", "/readyz", 200, "ready")
	expect("writable again", base+"/accounts", 200, `"data"`)
}
