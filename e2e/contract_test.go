package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/e2e/internal/harness"
	"github.com/google/go-cmp/cmp"
)

// envelope is a decoded 200 body, kept generic so that go-cmp sees every
// field exactly as sent.
type envelope struct {
	Data []any          `json:"data"`
	Meta map[string]any `json:"meta"`
}

// contract returns the OpenAPI validator for the shared replicas.
func (e *env) contract(t *testing.T) *harness.Contract {
	t.Helper()
	var urls []string
	for _, r := range e.replicas {
		urls = append(urls, r.URL)
	}
	c, err := harness.LoadContract(t.Context(), urls)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// call GETs path (with query) on a replica, validates the response against
// the contract, and returns it.
func (e *env) call(t *testing.T, c *harness.Contract, client *http.Client, base, path, key string) (*http.Response, []byte) {
	t.Helper()
	resp, body := e.get(t, client, base+"/api/v1/developer"+path, key)
	if err := c.Check(t.Context(), resp, body); err != nil {
		t.Error(err)
	}
	return resp, body
}

// listAll follows nextOffset from offset 0 with page size limit and returns
// every row and the first page's meta. It checks the paging fields of each page.
func (e *env) listAll(t *testing.T, c *harness.Contract, client *http.Client, base, endpoint string, q url.Values, key string, limit int) ([]any, map[string]any) {
	t.Helper()
	var rows []any
	var first map[string]any
	offset := 0
	for page := 0; ; page++ {
		if page > 100 {
			t.Fatal("more than 100 pages")
		}
		q.Set("limit", fmt.Sprint(limit))
		q.Set("offset", fmt.Sprint(offset))
		resp, body := e.call(t, c, client, base, endpoint+"?"+q.Encode(), key)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", endpoint, resp.StatusCode, body)
		}
		var env envelope
		if err := json.Unmarshal(body, &env); err != nil {
			t.Fatal(err)
		}
		m := env.Meta
		if first == nil {
			first = m
		}
		if m["source"] != "stored_snapshot" || m["liveMetaRequest"] != false || m["limit"] != float64(limit) ||
			m["offset"] != float64(offset) || m["returned"] != float64(len(env.Data)) || m["dataAsOf"] != first["dataAsOf"] {
			t.Errorf("GET %s offset %d: meta %v", endpoint, offset, m)
		}
		rows = append(rows, env.Data...)
		if m["nextOffset"] == nil {
			if len(env.Data) == limit {
				// A full final page may be followed by an empty one only.
				t.Logf("%s: full final page at offset %d", endpoint, offset)
			}
			return rows, first
		}
		next := int(m["nextOffset"].(float64))
		if next != offset+len(env.Data) || len(env.Data) != limit {
			t.Fatalf("GET %s offset %d: nextOffset %d after %d rows", endpoint, offset, next, len(env.Data))
		}
		offset = next
	}
}

func testContract(t *testing.T, e *env) {
	c := e.contract(t)
	client := harness.ClientFrom("127.0.0.11")
	key := e.keys["alpha_aci"]
	f := e.fix
	wantAsOf := f.Today.Add(-90 * time.Minute).Format(time.RFC3339)
	from, to := f.Today.AddDate(0, 0, -29), f.Today
	for i, r := range e.replicas {
		t.Run(fmt.Sprintf("replica%d", i), func(t *testing.T) {
			for _, tc := range []struct {
				endpoint string
				q        url.Values
				want     []any
			}{
				{"/accounts", url.Values{}, f.ExpectedAccounts(harness.OrgAlpha)},
				{"/campaigns", url.Values{}, f.ExpectedCampaigns(harness.OrgAlpha, "")},
				{"/campaigns", url.Values{"accountId": {"acc_alpha_usd"}}, f.ExpectedCampaigns(harness.OrgAlpha, "acc_alpha_usd")},
				{"/insights", url.Values{}, f.ExpectedInsights(harness.OrgAlpha, "", from, to)},
				{"/insights", url.Values{"accountId": {"acc_alpha_eur"}, "from": {day(f.Today, -6)}, "to": {day(f.Today, -2)}},
					f.ExpectedInsights(harness.OrgAlpha, "acc_alpha_eur", f.Today.AddDate(0, 0, -6), f.Today.AddDate(0, 0, -2))},
			} {
				got, meta := e.listAll(t, c, client, r.URL, tc.endpoint, tc.q, key, 7)
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("GET %s?%s differs from the imported document (-want +got):\n%s", tc.endpoint, tc.q.Encode(), diff)
				}
				if meta["dataAsOf"] != wantAsOf {
					t.Errorf("dataAsOf = %v, want %s", meta["dataAsOf"], wantAsOf)
				}
				if len(tc.want) == 0 {
					t.Fatalf("%s: the fixture selects no rows; the test would prove nothing", tc.endpoint)
				}
			}
			// Error responses are part of the contract too.
			for _, tc := range []struct {
				path, key string
				status    int
			}{
				{"/accounts", "", 401},
				{"/accounts", "svc_live_" + strings.Repeat("A", 43), 401},
				{"/accounts?limit=0&offset=x&bogus=1", key, 400},
				{"/accounts?api_key=" + key[:12], key, 400},
				{"/accounts?organizationId=" + harness.OrgBeta, key, 400},
				{"/accounts?accountId=acc_beta_jpy", key, 404},
				{"/insights?from=2000-01-01&to=2000-12-31", key, 400},
				{"/accounts", e.keys["alpha_c"], 403},
			} {
				resp, body := e.call(t, c, client, r.URL, tc.path, tc.key)
				if resp.StatusCode != tc.status {
					t.Errorf("GET %s: %d %s, want %d", tc.path, resp.StatusCode, body, tc.status)
				}
				var eb map[string]any
				if json.Unmarshal(body, &eb) != nil || eb["statusCode"] != float64(tc.status) || eb["message"] == nil {
					t.Errorf("GET %s: error body %s", tc.path, body)
				}
			}
		})
	}
	// Outside the API: unknown path and wrong method get the error body too.
	base := e.replicas[0].URL
	resp, body := e.get(t, client, base+"/api/v1/developer/nope", key)
	if resp.StatusCode != 404 || !strings.Contains(string(body), `"statusCode":404`) {
		t.Errorf("unknown path: %d %s", resp.StatusCode, body)
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/api/v1/developer/accounts", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	if resp, err := client.Do(req); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
}

// day formats today+delta days as YYYY-MM-DD.
func day(today time.Time, delta int) string { return today.AddDate(0, 0, delta).Format("2006-01-02") }
