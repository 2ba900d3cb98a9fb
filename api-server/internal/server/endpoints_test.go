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

// TestEveryEndpointChecksTheKey sends, to every endpoint of the table
// (endpoints.go; so an endpoint is covered the day it is declared), a known
// key that has since been revoked (401), one that has expired (401), one
// whose issuer was removed from the organization (403), and one without
// the endpoint's scope (403), each also with the page's valid ETag in
// If-None-Match (never 304: the data versions are read through the same
// key check as the rows, conditional.go). A known key is one the process has served
// already: on PostgreSQL its state is read with the rows (readRows), which
// the test checks by counting the lookups made alone; SQLite knows no key
// (keys.Authenticator.Known), and the same requests take the sequential
// lookup.
func TestEveryEndpointChecksTheKey(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		var lookups atomic.Int64
		e := newEnv(t, b, opts{keyLookups: &lookups, limits: server.Limits{KeyPerMinute: 1000, OrgPerMinute: 1000, IPPerMinute: 1000}})
		ctx := t.Context()
		create := func(user string, scopes apikey.Scopes, days int) *keys.CreatedKey {
			t.Helper()
			k, err := e.keys.Create(ctx, keys.CreateRequest{OrganizationID: "org_a", UserID: user, Name: "every endpoint", Scopes: scopes, ExpiresInDays: days})
			if err != nil {
				t.Fatal(err)
			}
			return k
		}
		removeAdmin := func(removed bool) {
			t.Helper()
			var at *time.Time
			if removed {
				now := time.Now()
				at = &now
			}
			org := keys.Organization{ID: "org_a", Name: "Acme", SubscriptionStatus: keys.SubscriptionActive}
			if err := keys.UpsertOrganization(ctx, e.db, org, []keys.Member{{UserID: testenv.AdminA, Role: keys.RoleAdmin, RemovedAt: at}}, time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		for _, ep := range server.Endpoints() {
			url := base + ep.Path + "?" + ep.Example
			// tag is url's ETag for the organization, from its first 200.
			tag := ""
			// known serves key twice (on PostgreSQL the second time on the
			// known path: no lookup alone), checks that tag answers 304,
			// then applies change, and expects want from the next two
			// requests, one with tag in If-None-Match (never 304): the first
			// of the two (the conditional one when condFirst) still on the
			// known path.
			known := func(name, key, servedURL string, change func(), want int, condFirst bool) {
				t.Helper()
				for i := range 2 {
					w := e.get(servedURL, key)
					if w.Code != http.StatusOK {
						t.Fatalf("%s %s: request %d: status %d: %s", ep.Path, name, i, w.Code, w.Body)
					}
					if got := w.Header().Get("ETag"); servedURL == url && got != "" && !ep.Tagged {
						t.Fatalf("%s: an ETag on an endpoint the table does not tag", ep.Path)
					}
					if servedURL == url && tag == "" {
						tag = w.Header().Get("ETag")
					}
				}
				switch {
				case tag == "" && ep.Tagged:
					t.Fatalf("%s: no ETag", ep.Path)
				case !ep.Tagged:
					tag = `W/"any"` // an untagged endpoint ignores If-None-Match
				}
				conditional := req{path: url, key: key, header: map[string]string{"If-None-Match": tag}}
				if servedURL == url && ep.Tagged {
					if w := e.do(conditional); w.Code != http.StatusNotModified {
						t.Fatalf("%s %s: If-None-Match: status %d, want 304: %s", ep.Path, name, w.Code, w.Body)
					}
				}
				before := lookups.Load()
				change()
				reqs := []req{{path: url, key: key}, conditional}
				if condFirst {
					reqs[0], reqs[1] = reqs[1], reqs[0]
				}
				for i, r := range reqs {
					w := e.do(r)
					if w.Code != want {
						t.Errorf("%s, %s known key (If-None-Match %q): status %d, want %d: %s", ep.Path, name, r.header["If-None-Match"], w.Code, want, w.Body)
					}
					if i == 0 && b.Name == "postgres" && lookups.Load() != before {
						t.Errorf("%s, %s: the key was looked up alone, not on the known path", ep.Path, name)
					}
				}
			}
			all := apikey.NewScopes(apikey.ScopeAccountsRead, apikey.ScopeCampaignsRead, apikey.ScopeInsightsRead)

			revoked := create(testenv.OwnerA, all, 30)
			known("revoked", revoked.Key, url, func() {
				if _, err := e.keys.Revoke(ctx, "org_a", testenv.OwnerA, revoked.ID); err != nil {
					t.Fatal(err)
				}
			}, http.StatusUnauthorized, true)

			expired := create(testenv.OwnerA, all, 1)
			known("expired", expired.Key, url, func() { e.clock.Advance(24*time.Hour + time.Second) }, http.StatusUnauthorized, false)

			admins := create(testenv.AdminA, all, 30)
			known("removed admin's", admins.Key, url, func() { removeAdmin(true) }, http.StatusForbidden, true)
			removeAdmin(false)

			// A key with every scope but the endpoint's, served first where
			// its scope allows.
			other, otherPath := apikey.ScopeAccountsRead, "/accounts"
			if ep.Scope == apikey.ScopeAccountsRead {
				other, otherPath = apikey.ScopeCampaignsRead, "/campaigns"
			}
			scoped := create(testenv.OwnerA, apikey.NewScopes(other), 30)
			known("scope-less", scoped.Key, base+otherPath, func() {}, http.StatusForbidden, false)

			// The organization's keys are capped: revoke what is left.
			for _, k := range []*keys.CreatedKey{admins, scoped} {
				if _, err := e.keys.Revoke(ctx, "org_a", testenv.OwnerA, k.ID); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}
