package keys_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/database"
	"github.com/adsnap/svc/keys-admin/keys"
)

// Example shows the life of a key: an owner creates it, the api-server looks
// it up on each request, and the owner revokes it.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "keys-example")
	defer os.RemoveAll(dir)
	handle, err := database.Connect(ctx, "sqlite:"+filepath.Join(dir, "keys.db"), database.Options{})
	if err != nil {
		panic(err)
	}
	defer handle.Close()
	db := handle.Bun
	if _, err := keys.Migrate(ctx, db); err != nil {
		panic(err)
	}
	// The host platform owns organizations and members; here we make one.
	err = keys.UpsertOrganization(ctx, db,
		keys.Organization{ID: "org_a", Name: "Acme", SubscriptionStatus: keys.SubscriptionActive},
		[]keys.Member{{UserID: "u_owner", Role: keys.RoleOwner}}, time.Now())
	if err != nil {
		panic(err)
	}

	// The owner's side: the keys-admin command, the settings page.
	m := keys.NewManager(db)
	created, err := m.Create(ctx, keys.CreateRequest{
		OrganizationID: "org_a", UserID: "u_owner", Name: "nightly export",
		Scopes:        apikey.NewScopes(apikey.ScopeAccountsRead, apikey.ScopeInsightsRead),
		ExpiresInDays: 30,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("valid key:", apikey.Validate(created.Key) == nil, created.State, created.Scopes)

	// The api-server's side.
	auth := keys.NewAuthenticator(handle, keys.AuthenticatorOptions{})
	p, err := auth.Lookup(ctx, created.Key)
	if err != nil {
		panic(err)
	}
	fmt.Println("organization:", p.OrganizationID)
	fmt.Println("accounts:read:", p.Authorize(apikey.ScopeAccountsRead))
	fmt.Println("campaigns:read:", p.Authorize(apikey.ScopeCampaignsRead))

	if _, err := m.Revoke(ctx, "org_a", "u_owner", created.ID); err != nil {
		panic(err)
	}
	_, err = auth.Lookup(ctx, created.Key)
	fmt.Println("after revoke:", errors.Is(err, keys.ErrUnauthenticated))
	// Output:
	// valid key: true active [accounts:read insights:read]
	// organization: org_a
	// accounts:read: <nil>
	// campaigns:read: the api key lacks the required scope: campaigns:read
	// after revoke: true
}

// ExampleManager_Create shows the typed errors a refused creation returns.
func ExampleManager_Create() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "keys-example")
	defer os.RemoveAll(dir)
	db, _ := database.Open(ctx, "sqlite:"+filepath.Join(dir, "keys.db"), database.Options{})
	defer db.Close()
	keys.Migrate(ctx, db)                                                                                         //nolint:errcheck
	keys.UpsertOrganization(ctx, db, keys.Organization{ID: "org_a", SubscriptionStatus: keys.SubscriptionActive}, //nolint:errcheck
		[]keys.Member{{UserID: "u_member", Role: keys.RoleMember}}, time.Now())
	m := keys.NewManager(db)

	_, err := m.Create(ctx, keys.CreateRequest{OrganizationID: "org_a", UserID: "u_member",
		Scopes: apikey.NewScopes(apikey.ScopeAccountsRead), ExpiresInDays: 91})
	fmt.Println(errors.Is(err, keys.ErrInvalidExpiry), err)
	_, err = m.Create(ctx, keys.CreateRequest{OrganizationID: "org_a", UserID: "u_member",
		Scopes: apikey.NewScopes(apikey.ScopeAccountsRead), ExpiresInDays: 30})
	fmt.Println(errors.Is(err, keys.ErrNotAdmin), errors.Is(err, keys.ErrRefused), err)
	// Output:
	// true invalid expiry: a key expires in 1 to 90 days, not 91
	// true true only organization owners and admins manage developer keys: user "u_member" is a member
}
