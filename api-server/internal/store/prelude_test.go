package store_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/database"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
)

// knownKey creates a key of org_a on b, resolves it once and returns its
// authenticator and id: Known then gives a Pending of it.
func knownKey(t *testing.T, b dbtest.Backend, h *database.DB) (auth *keys.Authenticator, km *keys.Manager, key, id string) {
	t.Helper()
	ctx := t.Context()
	km = keys.NewManager(b.DB)
	k, err := km.Create(ctx, keys.CreateRequest{OrganizationID: "org_a", UserID: testenv.OwnerA, Name: "prelude",
		Scopes: apikey.NewScopes(apikey.ScopeAccountsRead), ExpiresInDays: 30})
	if err != nil {
		t.Fatal(err)
	}
	auth = keys.NewAuthenticator(h, keys.AuthenticatorOptions{})
	if _, err := auth.Lookup(ctx, k.Key); err != nil {
		t.Fatal(err)
	}
	return auth, km, k.Key, k.ID
}

func pending(t *testing.T, auth *keys.Authenticator, key string) *keys.Pending {
	t.Helper()
	pd, ok := auth.Known(key)
	if !ok {
		t.Fatal("the key is not known")
	}
	return pd
}

// TestPrelude: a known key's epoch is read by the page's own statement (its
// key_epoch column, keys-admin's contract) on every endpoint and form, with
// the page the one read without it; a revocation, a demotion or a missing
// epoch is seen by the very next page (Stale), and Resolve then answers;
// SQLite refuses a Prelude.
func TestPrelude(t *testing.T) {
	b := dbtest.Postgres(t)
	ctx := t.Context()
	today := time.Now().UTC()
	testenv.Seed(t, b.DB, today)
	st, err := store.New(ctx, b.Handle)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	auth, km, key, id := knownKey(t, b, b.Handle)
	p := store.ListParams{Limit: 3}
	wm, want, err := st.AccountsPage(ctx, "org_a", p, nil)
	if err != nil || want.Len() == 0 {
		t.Fatal(want, err)
	}
	for i := range 3 { // the statements are prepared on first use, then cached
		pd := pending(t, auth, key)
		m, got, err := st.AccountsPage(ctx, "org_a", p, pd)
		if err != nil || m != wm || !reflect.DeepEqual(got.Rows(), want.Rows()) {
			t.Fatalf("with a prelude: %+v %+v %v", m, got, err)
		}
		if pd.Stale() {
			t.Fatalf("run %d: the epoch moved with nothing written", i)
		}
		if pr, err := pd.Principal(); err != nil || pr.KeyID != id || pr.IssuerRole != keys.RoleOwner {
			t.Fatalf("the key's state confirmed with the page: %+v %v", pr, err)
		}
	}
	// A demotion moves the epoch: the next page says Stale, Resolve reads
	// the state (a demoted issuer: 403 for the caller).
	if _, err := b.DB.ExecContext(ctx, `UPDATE organization_members SET role = 'member' WHERE organization_id = 'org_a' AND user_id = ?`, testenv.OwnerA); err != nil {
		t.Fatal(err)
	}
	pd := pending(t, auth, key)
	if _, got, err := st.CampaignsPage(ctx, "org_a", p, pd); err != nil || got.Len() == 0 || !pd.Stale() {
		t.Fatalf("campaigns after a demotion: %v %v, stale %v", got, err, pd.Stale())
	}
	if pr, err := pd.Resolve(ctx); err != nil || !errors.Is(pr.Authorize(apikey.ScopeAccountsRead), keys.ErrIssuerNotAdmin) {
		t.Fatalf("demoted: %+v %v", pr, err)
	}
	if _, err := b.DB.ExecContext(ctx, `UPDATE organization_members SET role = 'owner' WHERE organization_id = 'org_a' AND user_id = ?`, testenv.OwnerA); err != nil {
		t.Fatal(err)
	}
	if _, err := auth.Lookup(ctx, key); err != nil {
		t.Fatal(err)
	}
	from, to := today.AddDate(0, 0, -89).Format(time.DateOnly), today.Format(time.DateOnly)
	for _, acc := range []string{"", "acc_a1"} {
		for _, offset := range []int{0, 500} { // the plain and the seek forms
			pd = pending(t, auth, key)
			lp := store.ListParams{Limit: 3, Offset: offset, From: from, To: to, AccountID: acc}
			if _, _, err := st.InsightsPage(ctx, "org_a", lp, pd); err != nil {
				t.Fatalf("insights %q at offset %d with a prelude: %v", acc, offset, err)
			}
			if _, err := pd.Principal(); err != nil {
				t.Fatalf("insights %q at offset %d: %v", acc, offset, err)
			}
		}
	}

	// No epoch row: Stale, Resolve answers from the state, and the key is
	// no longer known (its next request is a Lookup).
	if _, err := b.DB.ExecContext(ctx, `DELETE FROM key_state_epochs`); err != nil {
		t.Fatal(err)
	}
	pd = pending(t, auth, key)
	if _, _, err := st.AccountsPage(ctx, "org_a", p, pd); err != nil || !pd.Stale() {
		t.Fatalf("no epoch row: %v, stale %v", err, pd.Stale())
	}
	if pr, err := pd.Resolve(ctx); err != nil || pr.KeyID != id {
		t.Fatalf("no epoch row: %+v %v", pr, err)
	}
	if _, ok := auth.Known(key); ok {
		t.Fatal("a key read with no epoch is known")
	}
	if _, err := b.DB.ExecContext(ctx, `UPDATE developer_keys SET expires_at = expires_at + interval '1 hour' WHERE id = ?`, id); err != nil {
		t.Fatal(err)
	}
	if _, err := auth.Lookup(ctx, key); err != nil { // an epoch again: known again
		t.Fatal(err)
	}

	// Revoked: the next page's round trip says so.
	if _, err := km.Revoke(ctx, "org_a", testenv.OwnerA, id); err != nil {
		t.Fatal(err)
	}
	pd = pending(t, auth, key)
	if _, got, err := st.AccountsPage(ctx, "org_a", p, pd); err != nil || got.Len() == 0 {
		t.Fatalf("page of a revoked key: %v %v", got, err)
	}
	if !pd.Stale() {
		t.Fatal("the revocation did not move the epoch read with the page")
	}
	if _, err := pd.Principal(); err == nil {
		t.Fatal("Principal answered from a stale state")
	}
	if _, err := pd.Resolve(ctx); !errors.Is(err, keys.ErrUnauthenticated) {
		t.Fatalf("revoked key: %v, want ErrUnauthenticated", err)
	}
	if _, ok := auth.Known(key); ok {
		t.Fatal("a revoked key is still known")
	}

	lite := dbtest.SQLite(t)
	if err := testenv.Migrate(ctx, lite.DB); err != nil {
		t.Fatal(err)
	}
	sl, err := store.New(ctx, lite.Handle)
	if err != nil {
		t.Fatal(err)
	}
	defer sl.Close()
	if _, _, err := sl.AccountsPage(ctx, "org_a", p, pd); err == nil {
		t.Fatal("SQLite accepted a prelude")
	}
}

// TestEmptyPageOneConnection: an empty page (its meta read by a second
// statement) with or without a Prelude uses the page's one connection: a
// store on a pool of one connection answers it, so a request in flight
// never holds two (the admission gate counts on one); the key's epoch
// comes with the page.
func TestEmptyPageOneConnection(t *testing.T) {
	b := dbtest.Postgres(t)
	ctx := t.Context()
	testenv.Seed(t, b.DB, time.Now().UTC())
	h, err := database.Connect(ctx, b.URL, database.Options{MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	st, err := store.New(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	auth, _, key, _ := knownKey(t, b, h)
	for _, p := range []store.ListParams{{Limit: 3, AccountID: "acc_nope"}, {Limit: 3, Offset: 9000}} {
		for _, keyed := range []bool{false, true} {
			var prelude store.Prelude
			var pd *keys.Pending
			if keyed {
				pd = pending(t, auth, key)
				prelude = pd
			}
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			m, got, err := st.AccountsPage(cctx, "org_a", p, prelude)
			cancel()
			if err != nil || m.AccountFound != (p.AccountID == "") || got != nil && got.Len() != 0 {
				t.Fatalf("%+v, keyed %v: %+v %v %v", p, keyed, m, got, err)
			}
			if keyed {
				if _, err := pd.Principal(); err != nil {
					t.Fatalf("%+v: the key's epoch with an empty page: %v", p, err)
				}
			}
			got.Release()
		}
	}
	// The connection is usable afterwards: a page with rows.
	if _, got, err := st.AccountsPage(ctx, "org_a", store.ListParams{Limit: 3}, pending(t, auth, key)); err != nil || got.Len() == 0 {
		t.Fatal(got, err)
	}
}

// TestRunPrelude: a Prelude run alone (Routed, before a page read on a
// replica: the meta statement) reads the key's organization's epoch and
// sees a revocation at once.
func TestRunPrelude(t *testing.T) {
	b := dbtest.Postgres(t)
	ctx := t.Context()
	testenv.Seed(t, b.DB, time.Now().UTC())
	st, err := store.New(ctx, b.Handle)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	auth, km, key, id := knownKey(t, b, b.Handle)
	pd := pending(t, auth, key)
	if err := st.RunPrelude(ctx, "org_a", pd); err != nil || pd.Stale() {
		t.Fatalf("epoch alone: %v, stale %v", err, pd.Stale())
	}
	if pr, err := pd.Principal(); err != nil || pr.KeyID != id {
		t.Fatalf("%+v %v", pr, err)
	}
	if _, err := km.Revoke(ctx, "org_a", testenv.OwnerA, id); err != nil {
		t.Fatal(err)
	}
	pd = pending(t, auth, key)
	if err := st.RunPrelude(ctx, "org_a", pd); err != nil || !pd.Stale() {
		t.Fatalf("after the revocation: %v, stale %v", err, pd.Stale())
	}
	if _, err := pd.Resolve(ctx); !errors.Is(err, keys.ErrUnauthenticated) {
		t.Fatalf("revoked: %v", err)
	}
}

// TestNewNeedsTheKeyMigrations: a PostgreSQL database without keys-admin's
// key-state epochs (its migration not applied) fails New, at start (its
// statements read them), with an error that says a table is missing, not
// every request later.
func TestNewNeedsTheKeyMigrations(t *testing.T) {
	b := dbtest.Postgres(t)
	ctx := t.Context()
	testenv.Seed(t, b.DB, time.Now().UTC())
	if _, err := b.DB.ExecContext(ctx, `DROP TABLE key_state_epochs`); err != nil {
		t.Fatal(err)
	}
	st, err := store.New(ctx, b.Handle)
	if err == nil {
		st.Close()
		t.Fatal("New accepted a database without key_state_epochs")
	}
	if !store.SchemaMissing(err) {
		t.Fatalf("New: %v, want an error SchemaMissing recognizes", err)
	}
}
