package keys_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
)

// TestEpochMovesWithState: the organization's key-state epoch changes with
// every write that can change whether one of its keys is accepted, in any
// form (keys-admin's own, raw SQL, TRUNCATE), and with nothing else; its
// values never come back.
func TestEpochMovesWithState(t *testing.T) {
	t.Parallel()
	b := dbtest.Postgres(t)
	ctx := t.Context()
	if err := migrate(ctx, b.DB); err != nil {
		t.Fatal(err)
	}
	svc, _ := setup(t, b)
	k, err := svc.Create(ctx, req("org_a", "u_admin"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]string{}
	epoch := func(org string) (int64, bool) {
		t.Helper()
		var e *int64
		if err := b.Handle.Pool.QueryRow(ctx, `SELECT (SELECT epoch FROM key_state_epochs WHERE organization_id = $1)`, org).Scan(&e); err != nil {
			t.Fatal(err)
		}
		if e == nil {
			return 0, false
		}
		return *e, true
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := b.Handle.Pool.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	last, ok := epoch("org_a")
	if !ok {
		t.Fatal("an organization with a key has no epoch")
	}
	seen[last] = "create"
	step := func(what string, moves bool, write func()) {
		t.Helper()
		write()
		e, ok := epoch("org_a")
		switch {
		case !ok:
			t.Fatalf("%s: the epoch row is gone", what)
		case moves && e == last:
			t.Errorf("%s: the epoch did not move", what)
		case !moves && e != last:
			t.Errorf("%s: the epoch moved (%d to %d)", what, last, e)
		case moves && seen[e] != "":
			t.Errorf("%s: epoch %d came back (first after %s)", what, e, seen[e])
		}
		if moves {
			seen[e] = what
		}
		last = e
	}

	step("last_used_at", false, func() { exec(`UPDATE developer_keys SET last_used_at = now() WHERE id = $1`, k.ID) })
	step("the key's name", false, func() { exec(`UPDATE developer_keys SET name = 'renamed' WHERE id = $1`, k.ID) })
	step("the same role again", false, func() {
		exec(`UPDATE organization_members SET role = role, updated_at = now() WHERE organization_id = 'org_a'`)
	})
	step("expires_at", true, func() {
		exec(`UPDATE developer_keys SET expires_at = expires_at + interval '1 day' WHERE id = $1`, k.ID)
	})
	step("scopes", true, func() { exec(`UPDATE developer_keys SET scopes = scopes || ' ' WHERE id = $1`, k.ID) })
	step("demotion", true, func() {
		exec(`UPDATE organization_members SET role = 'member' WHERE organization_id = 'org_a' AND user_id = 'u_admin'`)
	})
	step("removal", true, func() {
		exec(`UPDATE organization_members SET removed_at = now() WHERE organization_id = 'org_a' AND user_id = 'u_admin'`)
	})
	step("a membership deleted", true, func() {
		exec(`DELETE FROM organization_members WHERE organization_id = 'org_a' AND user_id = 'u_admin'`)
	})
	step("a membership added", true, func() {
		exec(`INSERT INTO organization_members (organization_id, user_id, role, created_at, updated_at) VALUES ('org_a', 'u_admin', 'admin', now(), now())`)
	})
	step("revocation", true, func() {
		if _, err := svc.Revoke(ctx, "org_a", "u_owner", k.ID); err != nil {
			t.Fatal(err)
		}
	})
	step("a key deleted", true, func() { exec(`DELETE FROM developer_keys WHERE id = $1`, k.ID) })
	step("a key issued", true, func() {
		if _, err := svc.Create(ctx, req("org_a", "u_admin")); err != nil {
			t.Fatal(err)
		}
	})
	step("a key moved to another organization", true, func() {
		exec(`UPDATE developer_keys SET organization_id = 'org_b' WHERE organization_id = 'org_a'`)
	})
	step("the keys truncated", true, func() { exec(`TRUNCATE developer_keys`) })
	step("the members truncated", true, func() { exec(`TRUNCATE organization_members`) })

	exec(`DELETE FROM key_state_epochs WHERE organization_id = 'org_a'`)
	if _, ok := epoch("org_a"); ok {
		t.Fatal("the epoch row is still there")
	}
	step("a membership added after the epoch row was deleted", true, func() {
		exec(`INSERT INTO organization_members (organization_id, user_id, role, created_at, updated_at) VALUES ('org_a', 'u_admin', 'admin', now(), now())`)
	})
}

// TestRememberedStateNeedsItsEpoch: a key's remembered state answers
// while its organization's epoch stands, and only then: with the
// migration's triggers off, a revocation is not seen (the remembered state
// answers), which shows the triggers are what makes it seen; a missing
// epoch row reads the state again.
func TestRememberedStateNeedsItsEpoch(t *testing.T) {
	t.Parallel()
	b, _, _, auth, k := resolvedKey(t, 30)
	ctx := t.Context()
	exec := func(sql string) {
		t.Helper()
		if _, err := b.Handle.Pool.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}

	// The epoch row deleted: the remembered state is stale, the state is
	// read again (still valid) and, with no epoch to go with it, not
	// remembered: the key's next request is a Lookup.
	exec(`DELETE FROM key_state_epochs`)
	pd, ok := auth.Known(k.Key)
	if !ok {
		t.Fatal("the key's state is not remembered")
	}
	if pd.SetEpoch(contractEpoch(t, b, pd.OrganizationID)); !pd.Stale() {
		t.Fatal("no epoch: not stale")
	}
	if _, err := pd.Principal(); err == nil {
		t.Fatal("Principal answered from a stale state")
	}
	if p, err := pd.Resolve(ctx); err != nil || p.KeyID != k.ID {
		t.Fatalf("no epoch: %+v, %v", p, err)
	}
	if _, ok := auth.Known(k.Key); ok {
		t.Fatal("no epoch: the key is still known")
	}
	if _, err := auth.Lookup(ctx, k.Key); err != nil {
		t.Fatal(err)
	}
	if _, ok := auth.Known(k.Key); ok {
		t.Fatal("no epoch: a Lookup remembered the key")
	}

	// An epoch again (the key's name is no part of its state, its
	// expiry is): the next Lookup remembers the key with it, then its
	// epoch confirms it.
	exec(`UPDATE developer_keys SET expires_at = expires_at + interval '1 hour'`)
	if _, err := auth.Lookup(ctx, k.Key); err != nil {
		t.Fatal(err)
	}
	pd, p, err := pending(t, b, auth, k.Key)
	if err != nil || pd.Stale() || p.KeyID != k.ID {
		t.Fatalf("epoch unchanged: stale %v, %+v, %v", pd.Stale(), p, err)
	}

	// Triggers off: the revocation leaves the epoch as it was, and the
	// remembered state (wrongly) answers. Triggers on: seen at once.
	exec(`ALTER TABLE developer_keys DISABLE TRIGGER USER`)
	exec(`UPDATE developer_keys SET revoked_at = now()`)
	if _, _, err := pending(t, b, auth, k.Key); err != nil {
		t.Fatalf("with the triggers off the remembered state should answer: %v", err)
	}
	exec(`UPDATE developer_keys SET revoked_at = NULL`)
	exec(`ALTER TABLE developer_keys ENABLE TRIGGER USER`)
	exec(`UPDATE developer_keys SET revoked_at = now()`)
	if _, _, err := pending(t, b, auth, k.Key); !errors.Is(err, keys.ErrUnauthenticated) {
		t.Fatalf("revoked with the triggers on: %v, want ErrUnauthenticated", err)
	}
	if _, ok := auth.Known(k.Key); ok {
		t.Fatal("a revoked key stays known")
	}
}

// TestResolveReadsTheEpochFirst: Resolve of a remembered key whose epoch
// stands answers from one read of the epoch; a moved epoch reads the
// state.
func TestResolveReadsTheEpochFirst(t *testing.T) {
	t.Parallel()
	b, _, clk, auth, k := resolvedKey(t, 2)
	ctx := t.Context()
	resolve := func() (*keys.Principal, error) {
		pd, ok := auth.Known(k.Key)
		if !ok {
			t.Fatal("not known")
		}
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return pd.Resolve(rctx)
	}
	if p, err := resolve(); err != nil || p.IssuerRole != keys.RoleAdmin {
		t.Fatalf("%+v %v", p, err)
	}
	if _, err := b.Handle.Pool.Exec(ctx, `UPDATE organization_members SET role = 'member' WHERE user_id = 'u_admin'`); err != nil {
		t.Fatal(err)
	}
	if p, err := resolve(); err != nil || p.IssuerRole != keys.RoleMember {
		t.Fatalf("demoted: %+v %v", p, err)
	}
	// Expiry is this process's clock against the remembered expiry.
	clk.Advance(49 * time.Hour)
	if _, err := resolve(); !errors.Is(err, keys.ErrUnauthenticated) {
		t.Fatalf("expired: %v", err)
	}
}

// resolvedKey is a migrated PostgreSQL database with a key of org_a's
// admin, expiring in days, resolved once by auth (Lookup), so that Known
// gives it with its state remembered.
func resolvedKey(t *testing.T, days int) (b dbtest.Backend, svc *keys.Manager, clk *fakeClock, auth *keys.Authenticator, k *keys.CreatedKey) {
	t.Helper()
	b = dbtest.Postgres(t)
	ctx := t.Context()
	if err := migrate(ctx, b.DB); err != nil {
		t.Fatal(err)
	}
	svc, clk = setup(t, b)
	auth = keys.NewAuthenticator(b.Handle, keys.AuthenticatorOptions{Now: clk.Now})
	r := req("org_a", "u_admin")
	r.ExpiresInDays = days
	k, err := svc.Create(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := auth.Lookup(ctx, k.Key); err != nil {
		t.Fatal(err)
	}
	return b, svc, clk, auth, k
}
