package server_test

import (
	"sync/atomic"
	"testing"

	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
)

// TestKnownKeyReplicaRoleAndBypass (security review 2, finding 1): a
// process that remembers a key sees a revocation and a demotion written
// under session_replication_role = replica (a logical replication apply
// worker, a DBA's bulk fix) on the next request; a revocation that bypasses
// the triggers altogether is refused within keys.DefaultRecheck of its
// read, never later.
func TestKnownKeyReplicaRoleAndBypass(t *testing.T) {
	b := dbtest.Postgres(t)
	ctx := t.Context()
	if err := testenv.Migrate(ctx, b.DB); err != nil {
		t.Fatal(err)
	}
	var lookups atomic.Int64
	e := newEnv(t, b, opts{keyLookups: &lookups})
	expect := func(name, key string, code int) {
		t.Helper()
		if w := e.get(base+"/accounts", key); w.Code != code {
			t.Fatalf("%s: status %d, want %d: %s", name, w.Code, code, w.Body.String())
		}
	}
	replica := func(sql string, args ...any) {
		t.Helper()
		tx, err := b.Handle.Pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx) //nolint:errcheck
		if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}

	// The review's reproduction: 200, 200; revoked in replica mode: 401.
	expect("first use", e.all, 200)
	expect("known", e.all, 200)
	replica(`UPDATE developer_keys SET revoked_at = now() WHERE id = $1`, e.allID)
	expect("revoked in replica mode, known", e.all, 401)

	// Demotion the same way: 403.
	expect("admin key", e.admin, 200)
	expect("admin key, known", e.admin, 200)
	replica(`UPDATE organization_members SET role = 'member' WHERE organization_id = 'org_a' AND user_id = $1`, testenv.AdminA)
	expect("issuer demoted in replica mode, known", e.admin, 403)

	// A revocation that bypasses every trigger: the remembered state
	// answers until the bound, then the key's state is read again.
	expect("org_b key", e.b, 200)
	for _, q := range []string{`ALTER TABLE developer_keys DISABLE TRIGGER USER`, `UPDATE developer_keys SET revoked_at = now() WHERE organization_id = 'org_b'`} {
		if _, err := b.Handle.Pool.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	expect("revoked with the triggers off, within the bound", e.b, 200)
	e.clock.Advance(keys.DefaultRecheck)
	expect("revoked with the triggers off, past the bound", e.b, 401)
	expect("revoked with the triggers off, forgotten", e.b, 401)
}
