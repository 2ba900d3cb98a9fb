package keyshttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/adsnap/svc/keys-admin/keyshttp"
	"github.com/uptrace/bun"
)

func migrate(ctx context.Context, db *bun.DB) error { _, err := keys.Migrate(ctx, db); return err }

// identify stands in for the host's session: it trusts two test headers.
func identify(r *http.Request) (keyshttp.Identity, error) {
	id := keyshttp.Identity{OrganizationID: r.Header.Get("X-Test-Org"), UserID: r.Header.Get("X-Test-User")}
	if id.UserID == "" {
		return id, errors.New("no session")
	}
	return id, nil
}

type client struct {
	t   *testing.T
	url string
}

func (c client) do(method, path, org, user, body string) (int, map[string]any) {
	c.t.Helper()
	req, _ := http.NewRequestWithContext(c.t.Context(), method, c.url+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if user != "" {
		req.Header.Set("X-Test-Org", org)
		req.Header.Set("X-Test-User", user)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.Header.Get("Cache-Control") != "no-store" || resp.Header.Get("Content-Type") != "application/json" {
		c.t.Errorf("%s %s: headers %v", method, path, resp.Header)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		c.t.Fatalf("%s %s: body %q is not JSON", method, path, raw)
	}
	if resp.StatusCode >= 400 && (out["statusCode"] != float64(resp.StatusCode) || out["message"] == nil) {
		c.t.Errorf("%s %s: error body %s", method, path, raw)
	}
	return resp.StatusCode, out
}

func TestHandler(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, migrate, func(t *testing.T, b dbtest.Backend) {
		ctx := t.Context()
		now := time.Now().UTC()
		ended := now.Add(-time.Hour)
		for _, o := range []struct {
			org keys.Organization
			m   []keys.Member
		}{
			{keys.Organization{ID: "org_a", SubscriptionStatus: keys.SubscriptionActive},
				[]keys.Member{{UserID: "owner", Role: keys.RoleOwner}, {UserID: "member", Role: keys.RoleMember}}},
			{keys.Organization{ID: "org_b", SubscriptionStatus: keys.SubscriptionTrialing, TrialEndsAt: &ended},
				[]keys.Member{{UserID: "b_owner", Role: keys.RoleOwner}}},
		} {
			if err := keys.UpsertOrganization(ctx, b.DB, o.org, o.m, now); err != nil {
				t.Fatal(err)
			}
		}
		svc := keys.NewManager(b.DB)
		mux := http.NewServeMux()
		mux.Handle("/settings/developer-keys/", http.StripPrefix("/settings/developer-keys", keyshttp.New(svc, identify, nil)))
		srv := httptest.NewServer(mux)
		defer srv.Close()
		c := client{t, srv.URL + "/settings/developer-keys"}
		good := `{"name":"etl","scopes":["accounts:read","insights:read"],"expiresInDays":30}`

		refusals := []struct {
			name, method, path, org, user, body string
			status                              int
			says                                string
		}{
			{"no session", "GET", "/", "", "", "", 401, "sign in"},
			{"bad scope", "POST", "/", "org_a", "owner", `{"scopes":["accounts:write","nope"],"expiresInDays":3}`, 400, "unknown scope"},
			{"no scope", "POST", "/", "org_a", "owner", `{"scopes":[],"expiresInDays":3}`, 400, "at least one"},
			{"expiry 0", "POST", "/", "org_a", "owner", `{"scopes":["accounts:read"],"expiresInDays":0}`, 400, "1 to 90 days"},
			{"expiry 91", "POST", "/", "org_a", "owner", `{"scopes":["accounts:read"],"expiresInDays":91}`, 400, "1 to 90 days"},
			{"unknown field", "POST", "/", "org_a", "owner", `{"scopes":["accounts:read"],"expiresInDays":3,"organizationId":"org_b"}`, 400, "unknown field"},
			{"not json", "POST", "/", "org_a", "owner", `{`, 400, "invalid JSON"},
			{"plain member", "POST", "/", "org_a", "member", good, 403, "owners and admins"},
			{"stranger", "POST", "/", "org_a", "b_owner", good, 403, "not a member"},
			{"trial over", "POST", "/", "org_b", "b_owner", good, 403, "subscription"},
			{"unknown org", "POST", "/", "org_x", "owner", good, 404, "organization not found"},
			{"member lists", "GET", "/", "org_a", "member", "", 403, "owners and admins"},
			{"unknown path", "GET", "/a/b", "org_a", "owner", "", 404, "no such endpoint"},
		}
		for _, tc := range refusals {
			status, body := c.do(tc.method, tc.path, tc.org, tc.user, tc.body)
			msg, _ := json.Marshal(body["message"])
			if status != tc.status || !strings.Contains(string(msg), tc.says) {
				t.Errorf("%s: %d %s, want %d saying %q", tc.name, status, msg, tc.status, tc.says)
			}
		}
		// Wrong content type.
		req, _ := http.NewRequestWithContext(ctx, "POST", c.url+"/", strings.NewReader(good))
		req.Header.Set("X-Test-Org", "org_a")
		req.Header.Set("X-Test-User", "owner")
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnsupportedMediaType {
			t.Errorf("form post: %v %v", resp.StatusCode, err)
		}
		if n, _ := b.DB.NewSelect().TableExpr("developer_keys").Count(ctx); n != 0 {
			t.Fatalf("refused requests wrote %d keys", n)
		}

		status, created := c.do("POST", "/", "org_a", "owner", good)
		key, _ := created["key"].(string)
		if status != 201 || !strings.HasPrefix(key, "svc_live_") || created["state"] != "active" || created["name"] != "etl" {
			t.Fatalf("create: %d %v", status, created)
		}
		status, list := c.do("GET", "/", "org_a", "owner", "")
		raw, _ := json.Marshal(list)
		if status != 200 || strings.Contains(string(raw), key) || !strings.Contains(string(raw), created["id"].(string)) {
			t.Fatalf("list: %d %s", status, raw)
		}
		if status, _ := c.do("GET", "/", "org_b", "b_owner", ""); status != 200 {
			t.Errorf("owner lists after trial: %d", status)
		}
		if status, _ := c.do("DELETE", "/"+created["id"].(string), "org_b", "b_owner", ""); status != 404 {
			t.Errorf("revoke from another org: %d", status)
		}
		if status, info := c.do("DELETE", "/"+created["id"].(string), "org_a", "owner", ""); status != 200 || info["state"] != "revoked" {
			t.Errorf("revoke: %d %v", status, info)
		}
		if status, _ := c.do("DELETE", "/"+created["id"].(string), "org_a", "owner", ""); status != 409 {
			t.Errorf("second revoke: %d", status)
		}
		for range 10 {
			if status, _ := c.do("POST", "/", "org_a", "owner", good); status != 201 {
				t.Fatalf("create: %d", status)
			}
		}
		if status, body := c.do("POST", "/", "org_a", "owner", good); status != 409 {
			t.Errorf("11th key: %d %v", status, body)
		}
	})
}

// TestStrict: cross-origin writes are refused; the JSON body is decoded
// strictly (trailing data, wrong case, duplicates, sizes); an id that is
// not shaped like a key id is never echoed (issue #22 point 8).
func TestStrict(t *testing.T) {
	t.Parallel()
	b := dbtest.SQLite(t)
	if err := migrate(t.Context(), b.DB); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	if err := keys.UpsertOrganization(t.Context(), b.DB, keys.Organization{ID: "org_a", SubscriptionStatus: keys.SubscriptionActive},
		[]keys.Member{{UserID: "owner", Role: keys.RoleOwner}}, now); err != nil {
		t.Fatal(err)
	}
	svc := keys.NewManager(b.DB)
	srv := httptest.NewServer(keyshttp.New(svc, identify, nil))
	defer srv.Close()
	good := `{"name":"etl","scopes":["accounts:read"],"expiresInDays":30}`
	send := func(method, path, body string, header map[string]string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Test-Org", "org_a")
		req.Header.Set("X-Test-User", "owner")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s: content type %q: %s", method, path, resp.Header.Get("Content-Type"), raw)
		}
		return resp.StatusCode, string(raw)
	}
	longID := strings.Repeat("k", 100<<10)
	for _, tc := range []struct {
		name, method, path, body string
		header                   map[string]string
		status                   int
		says                     string
	}{
		{"cross-site", "POST", "/", good, map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, "cross-origin"},
		{"other origin", "POST", "/", good, map[string]string{"Origin": "https://evil.example"}, 403, "cross-origin"},
		{"cross-site revoke", "DELETE", "/key_x", "", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, "cross-origin"},
		{"trailing data", "POST", "/", good + `{"name":"x"}`, nil, 400, "data after"},
		{"trailing garbage", "POST", "/", good + `x`, nil, 400, "invalid JSON"},
		{"wrong case", "POST", "/", `{"Name":"etl","scopes":["accounts:read"],"expiresInDays":30}`, nil, 400, "case-sensitive"},
		{"duplicate", "POST", "/", `{"name":"a","name":"b","scopes":["accounts:read"],"expiresInDays":30}`, nil, 400, "repeated"},
		{"not an object", "POST", "/", `["name"]`, nil, 400, "one JSON object"},
		{"too large", "POST", "/", `{"name":"` + strings.Repeat("a", 20<<10) + `"}`, nil, 413, "body over"},
		{"many scopes", "POST", "/", `{"scopes":[` + strings.Repeat(`"accounts:read",`, 20) + `"accounts:read"],"expiresInDays":3}`, nil, 400, "at most 8 scopes"},
		{"long scope", "POST", "/", `{"scopes":["` + strings.Repeat("s", 1000) + `"],"expiresInDays":3}`, nil, 400, "at most 64"},
		{"100 KB id", "DELETE", "/" + longID, "", nil, 404, "no such key"},
	} {
		status, body := send(tc.method, tc.path, tc.body, tc.header)
		if status != tc.status || !strings.Contains(body, tc.says) {
			t.Errorf("%s: %d %.200s, want %d saying %q", tc.name, status, body, tc.status, tc.says)
		}
		if len(body) > 1000 {
			t.Errorf("%s: a %d-byte answer echoes the input", tc.name, len(body))
		}
	}
	if n, _ := b.DB.NewSelect().TableExpr("developer_keys").Count(t.Context()); n != 0 {
		t.Fatalf("refused requests wrote %d keys", n)
	}
	// Same-origin browsers and non-browser clients still work.
	if status, body := send("POST", "/", good, map[string]string{"Sec-Fetch-Site": "same-origin"}); status != 201 {
		t.Errorf("same-origin create: %d %s", status, body)
	}
	if status, body := send("POST", "/", good, nil); status != 201 {
		t.Errorf("create without browser headers: %d %s", status, body)
	}
}
