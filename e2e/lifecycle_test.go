package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/e2e/internal/harness"
)

// statusOnAll GETs path with key on every shared replica and returns the statuses.
func (e *env) statusOnAll(t *testing.T, client *http.Client, path, key string) []int {
	t.Helper()
	var out []int
	for _, r := range e.replicas {
		resp, body := e.get(t, client, r.URL+"/api/v1/developer"+path, key)
		if resp.StatusCode >= 500 {
			t.Logf("%s%s: %d %.300s", r.URL, path, resp.StatusCode, body)
		}
		out = append(out, resp.StatusCode)
	}
	return out
}

func wantAll(t *testing.T, what string, got []int, want int) {
	t.Helper()
	for i, s := range got {
		if s != want {
			t.Errorf("%s: replica %d answered %d, want %d", what, i, s, want)
		}
	}
}

// reimport imports a document holding only org_alpha with members changed by f.
func (e *env) reimportAlpha(t *testing.T, change func(*harness.Member)) {
	t.Helper()
	var org harness.Organization
	for _, o := range e.fix.Doc.Organizations {
		if o.ID == harness.OrgAlpha {
			org = o
		}
	}
	org.Members = append([]harness.Member(nil), org.Members...)
	for i := range org.Members {
		change(&org.Members[i])
	}
	doc, _ := json.Marshal(map[string]any{"organizations": []harness.Organization{org}})
	out, errOut, code, err := harness.Run(t.Context(), e.bin.API, []string{"SVC_DATABASE_URL=" + e.dbURL}, string(doc), "import", "-")
	if err != nil || code != 0 {
		t.Fatalf("re-import: exit %d %v\n%s%s", code, err, out, errOut)
	}
}

func testKeyLifecycle(t *testing.T, e *env) {
	f := e.fix
	client := harness.ClientFrom("127.0.0.14")
	ka := func(args ...string) (string, string, int) {
		out, errOut, code, err := harness.Run(t.Context(), e.bin.KeysAdmin, []string{"SVC_DATABASE_URL=" + e.dbURL}, "", args...)
		if err != nil {
			t.Fatal(err)
		}
		// create prints the new key on stdout by design; everything else
		// keys-admin prints must be free of keys and canaries.
		if args[0] == "create" {
			e.rec.add("keys-admin stderr", errOut)
		} else {
			e.rec.add("keys-admin", out+errOut)
		}
		return out, errOut, code
	}

	t.Run("create", func(t *testing.T) {
		key, _, err := e.keysAdminCreate(t.Context(), keySpec{"gamma_new", harness.OrgGamma, f.Owner[harness.OrgGamma], "accounts:read"}, 1)
		if err != nil {
			t.Fatal(err)
		}
		wantAll(t, "new key", e.statusOnAll(t, client, "/accounts", key), 200)
	})
	t.Run("revoke", func(t *testing.T) {
		key := e.keys["gamma_revoke"]
		wantAll(t, "before revoke", e.statusOnAll(t, client, "/accounts", key), 200)
		out, errOut, code := ka("revoke", "--org", harness.OrgGamma, "--user", f.Owner[harness.OrgGamma], e.keyIDs["gamma_revoke"])
		if code != 0 {
			t.Fatalf("revoke: %d %s %s", code, out, errOut)
		}
		wantAll(t, "after revoke", e.statusOnAll(t, client, "/accounts", key), 401)
	})
	t.Run("expiry", func(t *testing.T) {
		if e.expiringFirst != 200 {
			t.Errorf("the expiring key answered %d right after set-up, want 200", e.expiringFirst)
		}
		// The expiry is an instant of the database's clock: the event
		// waited for is that instant (and a second for the clocks' skew).
		select {
		case <-time.After(time.Until(e.expiringAt.Add(time.Second))):
		case <-t.Context().Done():
			t.Fatal(t.Context().Err())
		}
		wantAll(t, "after expiry", e.statusOnAll(t, client, "/accounts", e.keys["gamma_expiring"]), 401)
	})
	t.Run("issuer demoted", func(t *testing.T) {
		key := e.keys["alpha_demoted"]
		wantAll(t, "before demotion", e.statusOnAll(t, client, "/accounts", key), 200)
		e.reimportAlpha(t, func(m *harness.Member) {
			if m.UserID == f.DemotedAdmin {
				m.Role = "member"
			}
		})
		wantAll(t, "after demotion", e.statusOnAll(t, client, "/accounts", key), 403)
	})
	t.Run("issuer removed", func(t *testing.T) {
		key := e.keys["alpha_removed"]
		wantAll(t, "before removal", e.statusOnAll(t, client, "/accounts", key), 200)
		e.reimportAlpha(t, func(m *harness.Member) {
			if m.UserID == f.RemovedAdmin {
				m.Removed = true
			}
			if m.UserID == f.DemotedAdmin {
				m.Role = "member"
			}
		})
		wantAll(t, "after removal", e.statusOnAll(t, client, "/accounts", key), 403)
		// The other keys of the organization are unaffected.
		wantAll(t, "owner's key", e.statusOnAll(t, client, "/accounts", e.keys["alpha_aci"]), 200)
	})
	t.Run("missing scope", func(t *testing.T) {
		wantAll(t, "campaigns-only key on /accounts", e.statusOnAll(t, client, "/accounts", e.keys["alpha_c"]), 403)
		wantAll(t, "campaigns-only key on /campaigns", e.statusOnAll(t, client, "/campaigns", e.keys["alpha_c"]), 200)
	})
	t.Run("11th key refused", func(t *testing.T) {
		owner := f.Owner[harness.OrgBeta]
		out, _, _ := ka("list", "--org", harness.OrgBeta, "--user", owner, "-o", "json")
		var list []struct{ State string }
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatalf("list: %v %q", err, out)
		}
		active := 0
		for _, k := range list {
			if k.State == "active" {
				active++
			}
		}
		for i := active; i < 10; i++ {
			if _, errOut, code := ka("create", "--org", harness.OrgBeta, "--user", owner, "--scopes", "accounts:read", "--name", fmt.Sprint("fill", i)); code != 0 {
				t.Fatalf("create #%d: %d %s", i+1, code, errOut)
			}
		}
		out, errOut, code := ka("create", "--org", harness.OrgBeta, "--user", owner, "--scopes", "accounts:read")
		if code != 5 || out != "" || !strings.Contains(errOut, "10 active") {
			t.Fatalf("11th key: exit %d stdout %q stderr %q", code, out, errOut)
		}
	})
}
