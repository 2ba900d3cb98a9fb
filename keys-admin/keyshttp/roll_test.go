package keyshttp_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/adsnap/svc/keys-admin/keyshttp"
)

// TestRoll: POST /{id}/roll answers 201 with the new key (its value, once)
// and the old key with its new expiry; bad bodies, another organization's
// key and a second roll are refused.
func TestRoll(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, migrate, func(t *testing.T, b dbtest.Backend) {
		ctx := t.Context()
		now := time.Now().UTC()
		for _, o := range []keys.Organization{
			{ID: "org_a", SubscriptionStatus: keys.SubscriptionActive}, {ID: "org_b", SubscriptionStatus: keys.SubscriptionActive},
		} {
			if err := keys.UpsertOrganization(ctx, b.DB, o, []keys.Member{{UserID: o.ID + "_owner", Role: keys.RoleOwner}, {UserID: "member", Role: keys.RoleMember}}, now); err != nil {
				t.Fatal(err)
			}
		}
		srv := httptest.NewServer(keyshttp.New(keys.NewManager(b.DB), identify, nil))
		defer srv.Close()
		c := client{t, srv.URL}
		status, created := c.do("POST", "/", "org_a", "org_a_owner", `{"name":"etl","scopes":["campaigns:read"],"expiresInDays":30}`)
		if status != http.StatusCreated {
			t.Fatalf("create: %d %v", status, created)
		}
		id := created["id"].(string)
		for _, tc := range []struct {
			org, user, body string
			status          int
			says            string
		}{
			{"org_a", "org_a_owner", `{"expiresInDays":30,"graceSeconds":604801}`, 400, "grace"},
			{"org_a", "org_a_owner", `{"expiresInDays":91,"graceSeconds":60}`, 400, "1 to 90 days"},
			{"org_a", "org_a_owner", `{"expiresInDays":30,"GraceSeconds":60}`, 400, "case-sensitive: expiresInDays, graceSeconds"},
			{"org_a", "member", `{"expiresInDays":30,"graceSeconds":60}`, 403, "owners and admins"},
			{"org_b", "org_b_owner", `{"expiresInDays":30,"graceSeconds":60}`, 404, "not found"},
		} {
			status, body := c.do("POST", "/"+id+"/roll", tc.org, tc.user, tc.body)
			msg, _ := json.Marshal(body["message"])
			if status != tc.status || !strings.Contains(string(msg), tc.says) {
				t.Errorf("%s as %s: %d %s, want %d saying %q", tc.body, tc.user, status, msg, tc.status, tc.says)
			}
		}
		status, rolled := c.do("POST", "/"+id+"/roll", "org_a", "org_a_owner", `{"expiresInDays":60,"graceSeconds":3600}`)
		n, _ := rolled["new"].(map[string]any)
		o, _ := rolled["old"].(map[string]any)
		if status != http.StatusCreated || n == nil || o == nil || !strings.HasPrefix(n["key"].(string), "svc_live_") ||
			o["id"] != id || o["replacedBy"] != n["id"] || n["name"] != "etl" {
			t.Fatalf("roll: %d %v", status, rolled)
		}
		if exp, _ := time.Parse(time.RFC3339Nano, o["expiresAt"].(string)); exp.Sub(now) > 2*time.Hour || exp.Sub(now) < 50*time.Minute {
			t.Errorf("the old key expires at %v, an hour from now", o["expiresAt"])
		}
		if status, body := c.do("POST", "/"+id+"/roll", "org_a", "org_a_owner", `{"expiresInDays":60,"graceSeconds":0}`); status != http.StatusConflict {
			t.Errorf("second roll: %d %v", status, body)
		}
	})
}
