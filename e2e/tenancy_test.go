package e2e

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/adsnap/svc/e2e/internal/harness"
)

// ownedIDs returns, per endpoint, the ids of org's rows.
func ownedIDs(f *harness.Fixture, org string) map[string]map[string]bool {
	out := map[string]map[string]bool{"/accounts": {}, "/campaigns": {}, "/insights": {}}
	for _, a := range f.Doc.Accounts {
		if a.OrganizationID == org {
			out["/accounts"][a.ID] = true
		}
	}
	for _, c := range f.Doc.Campaigns {
		if f.OrgOf(c.AccountID) == org {
			out["/campaigns"][c.ID] = true
		}
	}
	for _, in := range f.Doc.Insights {
		if f.OrgOf(in.AccountID) == org {
			out["/insights"][in.ID] = true
		}
	}
	return out
}

var endpointScope = map[string]string{"/accounts": "accounts:read", "/campaigns": "campaigns:read", "/insights": "insights:read"}

func testTenancy(t *testing.T, e *env) {
	f := e.fix
	c := e.contract(t)
	client := harness.ClientFrom("127.0.0.13")
	type keyOf struct{ name, org, scopes string }
	keys := []keyOf{{"beta", harness.OrgBeta, allScopes}, {"gamma", harness.OrgGamma, allScopes}}
	for name, scopes := range scopeCombos {
		keys = append(keys, keyOf{"alpha_" + name, harness.OrgAlpha, scopes})
	}
	var allAccounts []string
	for _, a := range f.Doc.Accounts {
		allAccounts = append(allAccounts, a.ID)
	}
	checked := 0
	for _, k := range keys {
		owned := ownedIDs(f, k.org)
		for i, endpoint := range []string{"/accounts", "/campaigns", "/insights"} {
			base := e.replicas[(i+len(k.name))%2].URL // spread over both replicas
			filters := []url.Values{{}, {"offset": {"3"}, "limit": {"2"}}, {"offset": {"10000"}}}
			for _, acc := range allAccounts {
				filters = append(filters, url.Values{"accountId": {acc}})
			}
			if endpoint == "/insights" {
				filters = append(filters,
					url.Values{"from": {day(f.Today, -3)}, "to": {day(f.Today, -1)}},
					url.Values{"from": {day(f.Today, -89)}, "to": {day(f.Today, 0)}, "limit": {"100"}})
			}
			for _, q := range filters {
				resp, body := e.call(t, c, client, base, endpoint+"?"+q.Encode(), e.keys[k.name])
				checked++
				acc := q.Get("accountId")
				foreign := acc != "" && f.OrgOf(acc) != k.org
				switch {
				case !strings.Contains(k.scopes, endpointScope[endpoint]):
					if resp.StatusCode != 403 {
						t.Errorf("%s %s?%s without scope: %d", k.name, endpoint, q.Encode(), resp.StatusCode)
					}
				case foreign:
					if resp.StatusCode != 404 {
						t.Errorf("%s %s?%s (account of %s): %d %s", k.name, endpoint, q.Encode(), f.OrgOf(acc), resp.StatusCode, body)
					}
				default:
					if resp.StatusCode != 200 {
						t.Errorf("%s %s?%s: %d %s", k.name, endpoint, q.Encode(), resp.StatusCode, body)
						continue
					}
					var env envelope
					if err := json.Unmarshal(body, &env); err != nil {
						t.Fatal(err)
					}
					for _, row := range env.Data {
						id := row.(map[string]any)["id"].(string)
						if !owned[endpoint][id] {
							t.Errorf("%s %s?%s returned %s, a row of another organization", k.name, endpoint, q.Encode(), id)
						}
					}
					if q.Get("offset") == "" && acc == "" && len(env.Data) == 0 {
						t.Errorf("%s %s: no rows at all; the check proves nothing", k.name, endpoint)
					}
				}
			}
		}
	}
	t.Logf("%d requests checked for tenancy", checked)
}
