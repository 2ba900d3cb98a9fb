package server_test

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/server"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
)

// TestKnownKey: on PostgreSQL a key the process has resolved once is not
// looked up on its own again (its limits are taken first, its state read
// with the page), and yet revocation, expiry, demotion and removal of the
// issuer, and deletion of the key, are answered on the very next request,
// with the statuses of DESIGN §3's order (401 before 403 before 400).
func TestKnownKey(t *testing.T) {
	b := dbtest.Postgres(t)
	if err := testenv.Migrate(t.Context(), b.DB); err != nil {
		t.Fatal(err)
	}
	var lookups atomic.Int64
	e := newEnv(t, b, opts{keyLookups: &lookups})
	ctx := t.Context()
	today := time.Now().UTC().Format(time.DateOnly)
	create := func(org, user string, scopes apikey.Scopes, days int) *keys.CreatedKey {
		t.Helper()
		k, err := e.keys.Create(ctx, keys.CreateRequest{OrganizationID: org, UserID: user, Name: "known", Scopes: scopes, ExpiresInDays: days})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	expect := func(name, path, key string, code int, wantLookups int64) {
		t.Helper()
		w := e.get(path, key)
		if w.Code != code {
			t.Errorf("%s: status %d, want %d: %s", name, w.Code, code, w.Body.String())
		}
		if code == http.StatusOK && w.Header().Get(server.KeyExpiresHeader) == "" {
			t.Errorf("%s: no %s", name, server.KeyExpiresHeader)
		}
		if n := lookups.Load(); n != wantLookups {
			t.Errorf("%s: %d sequential lookups so far, want %d", name, n, wantLookups)
		}
	}

	// Served: one sequential lookup, then the known path on every endpoint.
	expect("first use", base+"/accounts", e.all, 200, 1)
	expect("known, accounts", base+"/accounts", e.all, 200, 1)
	expect("known, campaigns", base+"/campaigns", e.all, 200, 1)
	expect("known, insights", base+"/insights?from="+today+"&to="+today, e.all, 200, 1)
	expect("known, bad query", base+"/accounts?limit=abc", e.all, 400, 1)
	expect("known, no such account", base+"/accounts?accountId=nope", e.all, 404, 1)

	// Revocation: 401 on the next request (read with the page), then the
	// key is forgotten and looked up on its own again.
	if _, err := e.keys.Revoke(ctx, "org_a", testenv.AdminA, e.allID); err != nil {
		t.Fatal(err)
	}
	expect("revoked, known", base+"/accounts", e.all, 401, 1)
	expect("revoked, forgotten", base+"/accounts", e.all, 401, 2)

	// Revoked with a bad query or a missing scope: still 401 first.
	k := create("org_a", testenv.OwnerA, apikey.NewScopes(apikey.ScopeAccountsRead), 30)
	expect("accounts-only key", base+"/accounts", k.Key, 200, 3)
	expect("known, missing scope", base+"/insights", k.Key, 403, 3)
	if _, err := e.keys.Revoke(ctx, "org_a", testenv.OwnerA, k.ID); err != nil {
		t.Fatal(err)
	}
	expect("revoked, known, bad query", base+"/accounts?limit=abc", k.Key, 401, 3)
	k = create("org_a", testenv.OwnerA, apikey.NewScopes(apikey.ScopeAccountsRead), 30)
	expect("accounts-only key 2", base+"/accounts", k.Key, 200, 4)
	if _, err := e.keys.Revoke(ctx, "org_a", testenv.OwnerA, k.ID); err != nil {
		t.Fatal(err)
	}
	expect("revoked, known, missing scope", base+"/insights", k.Key, 401, 4)

	// Demotion and removal of the issuer: 403 on the next request, and
	// 403 before 400.
	expect("admin key", base+"/accounts", e.admin, 200, 5)
	setRole := func(role string, removed *time.Time) {
		t.Helper()
		org := keys.Organization{ID: "org_a", Name: "Acme", SubscriptionStatus: keys.SubscriptionActive}
		if err := keys.UpsertOrganization(ctx, e.db, org, []keys.Member{{UserID: testenv.AdminA, Role: role, RemovedAt: removed}}, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	setRole(keys.RoleMember, nil)
	expect("demoted issuer, known", base+"/accounts", e.admin, 403, 5)
	expect("demoted issuer, known, bad query", base+"/accounts?limit=abc", e.admin, 403, 5)
	setRole(keys.RoleAdmin, nil)
	expect("promoted again", base+"/accounts", e.admin, 200, 5)
	now := time.Now()
	setRole(keys.RoleAdmin, &now)
	expect("removed issuer, known", base+"/campaigns", e.admin, 403, 5)
	if _, err := e.db.NewDelete().TableExpr("organization_members").Where("user_id = ?", testenv.AdminA).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	expect("membership deleted, known", base+"/accounts", e.admin, 403, 5)

	// Expiry.
	short := create("org_b", testenv.OwnerB, allScopes, 1)
	expect("short key", base+"/accounts", short.Key, 200, 6)
	expect("short key, known", base+"/accounts", short.Key, 200, 6)
	e.clock.Advance(24*time.Hour + time.Second)
	expect("expired, known", base+"/accounts", short.Key, 401, 6)

	// A key deleted outright.
	gone := create("org_b", testenv.OwnerB, allScopes, 30)
	expect("key to delete", base+"/accounts", gone.Key, 200, 7)
	if _, err := e.db.NewDelete().TableExpr("developer_keys").Where("id = ?", gone.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	expect("deleted, known", base+"/accounts", gone.Key, 401, 7)
}

// TestKnownKeyOverLimitAfterRevocation documents the one answer the known
// path changes: a known key revoked since its last request, on a request
// its key's bucket refuses, gets 429 (the limits are taken before the key
// is read), where the sequential order gives 401. Its next request, once
// the bucket allows it, is 401, and the key is then forgotten.
func TestKnownKeyOverLimitAfterRevocation(t *testing.T) {
	b := dbtest.Postgres(t)
	if err := testenv.Migrate(t.Context(), b.DB); err != nil {
		t.Fatal(err)
	}
	var lookups atomic.Int64
	e := newEnv(t, b, opts{keyLookups: &lookups, limits: server.Limits{KeyPerMinute: 2, OrgPerMinute: 100, IPPerMinute: 100}})
	for i := range 2 {
		if w := e.get(base+"/accounts", e.all); w.Code != 200 {
			t.Fatalf("request %d: %d", i, w.Code)
		}
	}
	if _, err := e.keys.Revoke(t.Context(), "org_a", testenv.AdminA, e.allID); err != nil {
		t.Fatal(err)
	}
	if w := e.get(base+"/accounts", e.all); w.Code != http.StatusTooManyRequests {
		t.Fatalf("revoked known key over its limit: %d, want 429 (known path)", w.Code)
	}
	if n := lookups.Load(); n != 1 {
		t.Fatalf("%d sequential lookups, want 1", n)
	}
}
