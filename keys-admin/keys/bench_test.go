package keys_test

import (
	"testing"

	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
)

// benchmarkLookup measures the api-server's per-request key lookup: format
// and checksum, SHA-256, and the one SQL round trip with the issuer's membership.
func benchmarkLookup(b *testing.B, backend dbtest.Backend) {
	if _, err := keys.Migrate(b.Context(), backend.DB); err != nil {
		b.Fatal(err)
	}
	if err := keys.UpsertOrganization(b.Context(), backend.DB,
		keys.Organization{ID: "org_a", SubscriptionStatus: keys.SubscriptionActive},
		[]keys.Member{{UserID: "u", Role: keys.RoleOwner}}, t0); err != nil {
		b.Fatal(err)
	}
	m := keys.NewManager(backend.DB)
	// Other keys in the table so that the lookup uses the index, not luck.
	for range 9 {
		if _, err := m.Create(b.Context(), keys.CreateRequest{OrganizationID: "org_a", UserID: "u", Scopes: apikey.NewScopes(apikey.ScopeAccountsRead), ExpiresInDays: 1}); err != nil {
			b.Fatal(err)
		}
	}
	k, err := m.Create(b.Context(), keys.CreateRequest{OrganizationID: "org_a", UserID: "u", Scopes: apikey.NewScopes(apikey.ScopeAccountsRead), ExpiresInDays: 1})
	if err != nil {
		b.Fatal(err)
	}
	auth := keys.NewAuthenticator(backend.Handle, keys.AuthenticatorOptions{})
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		p, err := auth.Lookup(b.Context(), k.Key)
		if err != nil || p.Authorize(apikey.ScopeAccountsRead) != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLookupPostgres(b *testing.B) { benchmarkLookup(b, dbtest.Postgres(b)) }
func BenchmarkLookupSQLite(b *testing.B)   { benchmarkLookup(b, dbtest.SQLite(b)) }
