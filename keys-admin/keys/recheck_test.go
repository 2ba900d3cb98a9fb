package keys_test

import (
	"errors"
	"testing"
	"time"

	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
)

// replicaExec runs sql in a transaction under session_replication_role =
// replica, as a logical replication apply worker or a DBA's bulk fix does.
func replicaExec(t *testing.T, b dbtest.Backend, sql string) {
	t.Helper()
	ctx := t.Context()
	tx, err := b.Handle.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	for _, q := range []string{`SET LOCAL session_replication_role = replica`, sql} {
		if _, err := tx.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestEpochMovesInReplicaRole (security review 2, finding 1): a demotion
// and a revocation written under session_replication_role = replica move
// the epoch (the triggers are ENABLE ALWAYS), so a remembered key sees
// them on its next lookup.
func TestEpochMovesInReplicaRole(t *testing.T) {
	t.Parallel()
	b, _, _, auth, k := resolvedKey(t, 30)
	if _, p, err := pending(t, b, auth, k.Key); err != nil || p.IssuerRole != keys.RoleAdmin {
		t.Fatalf("remembered: %+v, %v", p, err)
	}
	replicaExec(t, b, `UPDATE organization_members SET role = 'member' WHERE user_id = 'u_admin'`)
	if pd, p, err := pending(t, b, auth, k.Key); err != nil || !pd.Stale() || p.IssuerRole != keys.RoleMember {
		t.Fatalf("demoted in replica mode: stale %v, %+v, %v; want the demotion seen", pd.Stale(), p, err)
	}
	replicaExec(t, b, `UPDATE developer_keys SET revoked_at = now()`)
	if _, p, err := pending(t, b, auth, k.Key); !errors.Is(err, keys.ErrUnauthenticated) {
		t.Fatalf("revoked in replica mode: %+v, %v; want ErrUnauthenticated", p, err)
	}
}

// TestRecheckBoundsTriggerBypass: a revocation that bypasses the triggers
// (here disabled) leaves the epoch as it was; the remembered state answers
// for less than Recheck after it was read, never longer: then the state is
// read again in full (Stale) and the key refused.
func TestRecheckBoundsTriggerBypass(t *testing.T) {
	t.Parallel()
	b, _, clk, auth, k := resolvedKey(t, 30)
	ctx := t.Context()
	for _, q := range []string{`ALTER TABLE developer_keys DISABLE TRIGGER USER`, `UPDATE developer_keys SET revoked_at = now()`} {
		if _, err := b.Handle.Pool.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	clk.Advance(keys.DefaultRecheck - time.Second)
	if pd, _, err := pending(t, b, auth, k.Key); err != nil || pd.Stale() {
		t.Fatalf("within the bound the remembered state answers: stale %v, %v", pd.Stale(), err)
	}
	clk.Advance(time.Second)
	pd, ok := auth.Known(k.Key)
	if !ok {
		t.Fatal("not known")
	}
	if pd.SetEpoch(contractEpoch(t, b, pd.OrganizationID)); !pd.Stale() {
		t.Fatal("past the bound: not stale")
	}
	if _, err := pd.Resolve(ctx); !errors.Is(err, keys.ErrUnauthenticated) {
		t.Fatalf("past the bound: %v, want ErrUnauthenticated", err)
	}
	// Resolve before any epoch is read (a request refused before its
	// data) reads the state at once when overdue.
	if _, err := b.Handle.Pool.Exec(ctx, `UPDATE developer_keys SET revoked_at = NULL`); err != nil {
		t.Fatal(err)
	}
	if _, err := auth.Lookup(ctx, k.Key); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Handle.Pool.Exec(ctx, `UPDATE developer_keys SET revoked_at = now()`); err != nil {
		t.Fatal(err)
	}
	clk.Advance(keys.DefaultRecheck)
	if pd, ok = auth.Known(k.Key); !ok {
		t.Fatal("not known")
	}
	if _, err := pd.Resolve(ctx); !errors.Is(err, keys.ErrUnauthenticated) {
		t.Fatalf("overdue Resolve: %v, want ErrUnauthenticated", err)
	}
}

// TestRecheckNegativeRemembersNothing: Recheck < 0 reads every key's state
// on every request: Known never answers.
func TestRecheckNegativeRemembersNothing(t *testing.T) {
	t.Parallel()
	b, _, clk, _, k := resolvedKey(t, 30)
	auth := keys.NewAuthenticator(b.Handle, keys.AuthenticatorOptions{Now: clk.Now, Recheck: -1})
	if _, err := auth.Lookup(t.Context(), k.Key); err != nil {
		t.Fatal(err)
	}
	if _, ok := auth.Known(k.Key); ok {
		t.Fatal("Recheck < 0: the key is remembered")
	}
}
