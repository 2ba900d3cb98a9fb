package keys_test

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/database"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
)

func TestLookup(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, migrate, func(t *testing.T, b dbtest.Backend) {
		svc, clk := setup(t, b)
		auth := keys.NewAuthenticator(b.Handle, keys.AuthenticatorOptions{Now: clk.Now})
		ctx := t.Context()
		r := req("org_a", "u_admin")
		r.ExpiresInDays = 2
		k, err := svc.Create(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		p, err := auth.Lookup(ctx, k.Key)
		if err != nil {
			t.Fatal(err)
		}
		if p.KeyID != k.ID || p.OrganizationID != "org_a" || p.IssuerRole != keys.RoleAdmin || p.IssuerRemoved {
			t.Fatalf("principal = %+v", p)
		}
		if err := p.Authorize(apikey.ScopeAccountsRead); err != nil {
			t.Errorf("Authorize(accounts:read) = %v", err)
		}
		err = p.Authorize(apikey.ScopeInsightsRead)
		var se *keys.ScopeError
		if !errors.Is(err, keys.ErrScopeMissing) || !errors.As(err, &se) || se.Scope != apikey.ScopeInsightsRead {
			t.Errorf("Authorize(insights:read) = %v, want a *ScopeError naming insights:read", err)
		}

		other, _ := apikey.Generate()
		typo := []byte(k.Key)
		typo[len(typo)-1] ^= 1 // another letter or digit: the checksum no longer matches
		for name, presented := range map[string]string{
			"empty": "", "malformed": string(typo), "unknown": other,
		} {
			if _, err := auth.Lookup(ctx, presented); !errors.Is(err, keys.ErrUnauthenticated) || err != keys.ErrUnauthenticated {
				t.Errorf("%s: err = %v, want exactly ErrUnauthenticated", name, err)
			}
		}

		// Demotion and removal of the issuer take effect on the next lookup.
		demote := func(role string, removed *time.Time) {
			t.Helper()
			err := keys.UpsertOrganization(ctx, b.DB,
				keys.Organization{ID: "org_a", Name: "Acme", SubscriptionStatus: keys.SubscriptionActive},
				[]keys.Member{{UserID: "u_admin", Role: role, RemovedAt: removed}}, t0)
			if err != nil {
				t.Fatal(err)
			}
		}
		demote(keys.RoleMember, nil)
		if p, err := auth.Lookup(ctx, k.Key); err != nil || !errors.Is(p.Authorize(apikey.ScopeAccountsRead), keys.ErrIssuerNotAdmin) {
			t.Errorf("demoted issuer: %v, %v", err, p)
		}
		demote(keys.RoleAdmin, ptr(t0))
		if p, err := auth.Lookup(ctx, k.Key); err != nil || !errors.Is(p.Authorize(apikey.ScopeAccountsRead), keys.ErrIssuerNotAdmin) {
			t.Errorf("removed issuer: %v", err)
		}
		if _, err := b.DB.NewDelete().TableExpr("organization_members").Where("user_id = 'u_admin'").Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if p, err := auth.Lookup(ctx, k.Key); err != nil || !errors.Is(p.Authorize(apikey.ScopeAccountsRead), keys.ErrIssuerNotAdmin) {
			t.Errorf("deleted membership: %v", err)
		}
		demote(keys.RoleOwner, nil)
		if p, err := auth.Lookup(ctx, k.Key); err != nil || p.Authorize(apikey.ScopeAccountsRead) != nil {
			t.Errorf("restored owner: %v", err)
		}

		// Expiry and revocation take effect on the next lookup.
		clk.Advance(48*time.Hour - time.Microsecond)
		if _, err := auth.Lookup(ctx, k.Key); err != nil {
			t.Errorf("just before expiry: %v", err)
		}
		clk.Advance(time.Microsecond)
		if _, err := auth.Lookup(ctx, k.Key); err != keys.ErrUnauthenticated {
			t.Errorf("at expiry: %v", err)
		}
		k2, _ := svc.Create(ctx, req("org_a", "u_owner"))
		if _, err := auth.Lookup(ctx, k2.Key); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Revoke(ctx, "org_a", "u_owner", k2.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := auth.Lookup(ctx, k2.Key); err != keys.ErrUnauthenticated {
			t.Errorf("after revoke: %v", err)
		}
	})
}

func TestMalformedKeyNeedsNoDatabase(t *testing.T) {
	t.Parallel()
	b := dbtest.SQLite(t)
	auth := keys.NewAuthenticator(b.Handle, keys.AuthenticatorOptions{})
	b.DB.Close() // any database work would now fail with a different error
	if _, err := auth.Lookup(t.Context(), "svc_live_short"); err != keys.ErrUnauthenticated {
		t.Fatalf("err = %v", err)
	}
}

func TestLastUsedIsThrottled(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, migrate, func(t *testing.T, b dbtest.Backend) {
		seed(t, b.DB)
		ctx := t.Context()
		clk := &fakeClock{t: t0}
		lastUsed := func() *time.Time {
			t.Helper()
			var v struct {
				T *time.Time `bun:"last_used_at"`
			}
			if err := b.DB.NewSelect().TableExpr("developer_keys").ColumnExpr("last_used_at").Scan(ctx, &v); err != nil {
				t.Fatal(err)
			}
			return v.T
		}
		// Each phase uses its own Authenticator (a replica) and stops its
		// writer, which flushes what it holds.
		phase := func(f func(*keys.Authenticator)) {
			a := keys.NewAuthenticator(b.Handle, keys.AuthenticatorOptions{Now: clk.Now})
			rctx, cancel := context.WithCancel(ctx)
			done := make(chan error)
			go func() { done <- a.Run(rctx) }()
			f(a)
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
		k, err := keys.NewManager(b.DB, keys.WithManagerClock(clk.Now)).Create(ctx, req("org_a", "u_owner"))
		if err != nil {
			t.Fatal(err)
		}
		key := k.Key
		if lastUsed() != nil {
			t.Fatal("last_used_at set before any use")
		}
		phase(func(s *keys.Authenticator) {
			for range 5 {
				s.Lookup(ctx, key) //nolint:errcheck
				clk.Advance(time.Second)
			}
		})
		if got := lastUsed(); got == nil || !got.Equal(t0) {
			t.Fatalf("after first use last_used_at = %v, want %v", got, t0)
		}
		clk.Advance(30 * time.Second)                             // 35 s after the first use: another replica must not write
		phase(func(s *keys.Authenticator) { s.Lookup(ctx, key) }) //nolint:errcheck
		if got := lastUsed(); !got.Equal(t0) {
			t.Fatalf("written again within a minute: %v", got)
		}
		clk.Advance(30 * time.Second)
		phase(func(s *keys.Authenticator) { s.Lookup(ctx, key) }) //nolint:errcheck
		if got := lastUsed(); !got.Equal(t0.Add(65 * time.Second)) {
			t.Fatalf("after a minute last_used_at = %v, want %v", got, t0.Add(65*time.Second))
		}
	})
}

// contractEpoch reads an organization's key-state epoch as pending.go's
// contract tells a caller to: the documented scalar subquery, a column of
// the caller's own statement (here with a column of its own beside it).
func contractEpoch(t *testing.T, b dbtest.Backend, org string) (int64, bool) {
	t.Helper()
	var (
		e   *int64
		one int
	)
	q := `SELECT 1, (SELECT epoch FROM key_state_epochs WHERE organization_id = $1)`
	if err := b.Handle.Pool.QueryRow(t.Context(), q, org).Scan(&one, &e); err != nil {
		t.Fatal(err)
	}
	if e == nil {
		return 0, false
	}
	return *e, true
}

// pending confirms a Known key as the api-server does (pending.go): its
// epoch read as the contract says (there in the page's statement), then
// Principal, or Resolve when the epoch has moved.
func pending(t *testing.T, b dbtest.Backend, auth *keys.Authenticator, key string) (*keys.Pending, *keys.Principal, error) {
	t.Helper()
	pd, ok := auth.Known(key)
	if !ok {
		t.Fatal("key not known")
	}
	pd.SetEpoch(contractEpoch(t, b, pd.OrganizationID))
	if pd.Stale() {
		p, err := pd.Resolve(t.Context())
		return pd, p, err
	}
	p, err := pd.Principal()
	return pd, p, err
}

// TestKnownNeverAnswersAlone: the Identity a key resolved once is
// remembered (PostgreSQL), but revocation, expiry, demotion and removal of
// the issuer are read on the very next lookup through Pending; a refused
// key is forgotten.
func TestKnownNeverAnswersAlone(t *testing.T) {
	t.Parallel()
	b := dbtest.Postgres(t)
	if err := migrate(t.Context(), b.DB); err != nil {
		t.Fatal(err)
	}
	svc, clk := setup(t, b)
	ctx := t.Context()
	auth := keys.NewAuthenticator(b.Handle, keys.AuthenticatorOptions{Now: clk.Now})
	r := req("org_a", "u_admin")
	r.ExpiresInDays = 2
	k, err := svc.Create(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := auth.Known(k.Key); ok {
		t.Fatal("known before any lookup")
	}
	if _, err := auth.Lookup(ctx, k.Key); err != nil {
		t.Fatal(err)
	}
	pd, p, err := pending(t, b, auth, k.Key)
	if err != nil || p.KeyID != k.ID || pd.KeyID != k.ID || pd.OrganizationID != "org_a" ||
		!pd.Scopes.Has(apikey.ScopeAccountsRead) || p.Authorize(apikey.ScopeAccountsRead) != nil {
		t.Fatalf("pending = %+v, %+v, %v", pd, p, err)
	}
	if _, ok := auth.Known(k.Key); !ok {
		t.Fatal("the key's state, read with its epoch, is not remembered")
	}

	setRole := func(role string, removed *time.Time) {
		t.Helper()
		if err := keys.UpsertOrganization(ctx, b.DB, keys.Organization{ID: "org_a", Name: "Acme", SubscriptionStatus: keys.SubscriptionActive},
			[]keys.Member{{UserID: "u_admin", Role: role, RemovedAt: removed}}, t0); err != nil {
			t.Fatal(err)
		}
	}
	setRole(keys.RoleMember, nil)
	if _, p, err := pending(t, b, auth, k.Key); err != nil || !errors.Is(p.Authorize(apikey.ScopeAccountsRead), keys.ErrIssuerNotAdmin) {
		t.Errorf("demoted issuer, cached key: %v, %v", p, err)
	}
	setRole(keys.RoleAdmin, ptr(t0))
	if _, p, err := pending(t, b, auth, k.Key); err != nil || !errors.Is(p.Authorize(apikey.ScopeAccountsRead), keys.ErrIssuerNotAdmin) {
		t.Errorf("removed issuer, cached key: %v, %v", p, err)
	}
	if _, err := b.DB.NewDelete().TableExpr("organization_members").Where("user_id = 'u_admin'").Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, p, err := pending(t, b, auth, k.Key); err != nil || !errors.Is(p.Authorize(apikey.ScopeAccountsRead), keys.ErrIssuerNotAdmin) {
		t.Errorf("deleted membership, cached key: %v, %v", p, err)
	}
	setRole(keys.RoleOwner, nil)

	// Expiry: the next lookup refuses and the key is forgotten.
	clk.Advance(48 * time.Hour)
	if _, _, err := pending(t, b, auth, k.Key); err != keys.ErrUnauthenticated {
		t.Errorf("expired, cached key: %v", err)
	}
	if _, ok := auth.Known(k.Key); ok {
		t.Error("an expired key stays known")
	}

	// Revocation, likewise.
	k2, err := svc.Create(ctx, req("org_a", "u_owner"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := auth.Lookup(ctx, k2.Key); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Revoke(ctx, "org_a", "u_owner", k2.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := pending(t, b, auth, k2.Key); err != keys.ErrUnauthenticated {
		t.Errorf("revoked, cached key: %v", err)
	}
	if _, ok := auth.Known(k2.Key); ok {
		t.Error("a revoked key stays known")
	}

	// A key deleted outright: no row, refused, forgotten.
	k3, _ := svc.Create(ctx, req("org_a", "u_owner"))
	if _, err := auth.Lookup(ctx, k3.Key); err != nil {
		t.Fatal(err)
	}
	if _, err := b.DB.NewDelete().TableExpr("developer_keys").Where("id = ?", k3.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := pending(t, b, auth, k3.Key); err != keys.ErrUnauthenticated {
		t.Errorf("deleted, cached key: %v", err)
	}
	if _, ok := auth.Known(k3.Key); ok {
		t.Error("a deleted key stays known")
	}
}

// TestKnownOnlyOnPostgres: SQLite keeps the sequential path.
func TestKnownOnlyOnPostgres(t *testing.T) {
	t.Parallel()
	b := dbtest.SQLite(t)
	if err := migrate(t.Context(), b.DB); err != nil {
		t.Fatal(err)
	}
	svc, _ := setup(t, b)
	k, err := svc.Create(t.Context(), req("org_a", "u_owner"))
	if err != nil {
		t.Fatal(err)
	}
	auth := keys.NewAuthenticator(b.Handle, keys.AuthenticatorOptions{})
	if _, err := auth.Lookup(t.Context(), k.Key); err != nil {
		t.Fatal(err)
	}
	if _, ok := auth.Known(k.Key); ok {
		t.Fatal("known on SQLite")
	}
}

// TestRunStopsOnCancel: the constructor starts nothing; Run returns once
// its context is done, leaving no goroutine behind.
func TestRunStopsOnCancel(t *testing.T) {
	b := dbtest.SQLite(t)
	if err := migrate(t.Context(), b.DB); err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	auth := keys.NewAuthenticator(b.Handle, keys.AuthenticatorOptions{})
	// Greater, not different: a goroutine of the set-up (the database
	// driver's) may end meanwhile.
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("NewAuthenticator started %d goroutines", n-before)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- auth.Run(ctx) }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	// A goroutine's end sends nothing: its count is asked until it falls.
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(2 * time.Second)
	for runtime.NumGoroutine() > before {
		select {
		case <-tick.C:
		case <-timeout:
			t.Fatalf("%d goroutines left 2 s after Run returned", runtime.NumGoroutine()-before)
		}
	}
}

// TestRunNeedsOneConnection: the writer takes one connection at a time, so
// that the api-server can keep exactly one of the pool's connections out
// of its admission gate for it (api-server serve: the gate is the pool's
// size minus one). On a pool of one connection it writes every key used.
func TestRunNeedsOneConnection(t *testing.T) {
	t.Parallel()
	b := dbtest.Postgres(t)
	if err := migrate(t.Context(), b.DB); err != nil {
		t.Fatal(err)
	}
	svc, clk := setup(t, b)
	ctx := t.Context()
	var created []string
	for range 5 {
		k, err := svc.Create(ctx, req("org_a", "u_owner"))
		if err != nil {
			t.Fatal(err)
		}
		created = append(created, k.Key)
	}
	one, err := database.Connect(ctx, b.URL, database.Options{MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	var writes, failed atomic.Int32
	wrote := make(chan struct{}, len(created))
	auth := keys.NewAuthenticator(one, keys.AuthenticatorOptions{Now: clk.Now, LastUsedHook: func(err error) {
		writes.Add(1)
		if err != nil {
			failed.Add(1)
		}
		select {
		case wrote <- struct{}{}:
		default:
		}
	}})
	for _, k := range created {
		if _, err := auth.Lookup(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- auth.Run(rctx) }()
	// Wait for every write (the hook's signal); meanwhile the pool is
	// sampled: never more than its one connection acquired.
	sample := time.NewTicker(5 * time.Millisecond)
	defer sample.Stop()
	deadline := time.After(10 * time.Second)
	for seen := 0; seen < len(created); {
		select {
		case <-wrote:
			seen++
		case <-sample.C:
			if n := one.Pool.Stat().AcquiredConns(); n > 1 {
				t.Fatalf("%d connections acquired", n)
			}
		case <-deadline:
			seen = len(created) // the count below reports it
		}
	}
	cancel()
	<-done
	if writes.Load() != int32(len(created)) || failed.Load() != 0 {
		t.Fatalf("%d writes, %d failed, want %d, 0", writes.Load(), failed.Load(), len(created))
	}
	n, err := b.DB.NewSelect().TableExpr("developer_keys").Where("last_used_at IS NOT NULL").Count(ctx)
	if err != nil || int(n) != len(created) {
		t.Fatalf("%d keys with last_used_at, %v", n, err)
	}
}
