package store_test

import (
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
)

// BenchmarkKnownPage measures the request path's database step for a key
// this process knows: Known, the page with its key's epoch (one statement),
// Principal. Its allocations per page do not depend on the machine's load
// (README, Performance, note 13).
//
//	go test -run '^$' -bench KnownPage -benchmem ./internal/store/
func BenchmarkKnownPage(b *testing.B) {
	be := dbtest.Postgres(b)
	ctx := b.Context()
	today := time.Now().UTC()
	testenv.Seed(b, be.DB, today)
	st, err := store.New(ctx, be.Handle)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(st.Close)
	k, err := keys.NewManager(be.DB).Create(ctx, keys.CreateRequest{OrganizationID: "org_a", UserID: testenv.OwnerA,
		Name: "bench", Scopes: apikey.NewScopes(apikey.ScopeAccountsRead), ExpiresInDays: 30})
	if err != nil {
		b.Fatal(err)
	}
	auth := keys.NewAuthenticator(be.Handle, keys.AuthenticatorOptions{})
	if _, err := auth.Lookup(ctx, k.Key); err != nil {
		b.Fatal(err)
	}
	from, to := today.AddDate(0, 0, -89).Format(time.DateOnly), today.Format(time.DateOnly)
	read := map[string]func(pd *keys.Pending) (int, error){
		"accounts": func(pd *keys.Pending) (int, error) {
			_, pg, err := st.AccountsPage(ctx, "org_a", store.ListParams{Limit: 51}, pd)
			defer pg.Release()
			return pg.Len(), err
		},
		"insights": func(pd *keys.Pending) (int, error) {
			_, pg, err := st.InsightsPage(ctx, "org_a", store.ListParams{Limit: 51, From: from, To: to}, pd)
			defer pg.Release()
			return pg.Len(), err
		},
	}
	for _, name := range []string{"accounts", "insights"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				pd, ok := auth.Known(k.Key)
				if !ok {
					b.Fatal("the key is not known")
				}
				n, err := read[name](pd)
				if err != nil || n == 0 {
					b.Fatal(n, err)
				}
				if _, err := pd.Principal(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
