package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apiserver "github.com/adsnap/svc/api-server"
	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/server"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
)

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sorted(s ...string) []string { sort.Strings(s); return s }

// openAPIFields returns the properties a schema of openapi.yaml requires
// (every property: TestOpenAPIAgrees), sorted: the wire contract.
func openAPIFields(name string) []string {
	raw, err := apiserver.OpenAPIJSON()
	if err != nil {
		panic(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Required []string `json:"required"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		panic(err)
	}
	return sorted(doc.Components.Schemas[name].Required...)
}

var (
	accountFields  = openAPIFields("Account")
	campaignFields = openAPIFields("Campaign")
	insightFields  = openAPIFields("Insight")
	metaFields     = sorted("source", "liveMetaRequest", "limit", "offset", "nextOffset", "returned",
		"generatedAt", "dataAsOf", "note")
)

func TestEndpoints(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		e := newEnv(t, b, opts{})
		today := time.Now().UTC().Format(time.DateOnly)

		p := decodePage(t, e.get(base+"/accounts", e.all))
		if got, want := ids(p), []string{"acc_a1", "acc_a2"}; !slices.Equal(got, want) {
			t.Fatalf("accounts %v, want %v", got, want)
		}
		for _, d := range p.Data {
			if got := keysOf(d); !slices.Equal(got, accountFields) {
				t.Errorf("account fields %v, want %v", got, accountFields)
			}
		}
		if got := keysOf(p.Meta); !slices.Equal(got, metaFields) {
			t.Errorf("meta fields %v", got)
		}
		a1 := p.Data[0]
		if a1["currency"] != "EUR" || a1["timezone"] != "Europe/Berlin" || a1["isActive"] != true ||
			a1["lastSyncAt"] != "2026-11-20T06:00:00Z" || a1["accountName"] != "Acme EU" {
			t.Errorf("acc_a1 = %v", a1)
		}
		if p.Data[1]["lastSyncAt"] != nil || p.Data[1]["isActive"] != false {
			t.Errorf("acc_a2 = %v", p.Data[1])
		}
		m := p.Meta
		if m["source"] != "stored_snapshot" || m["liveMetaRequest"] != false || m["limit"] != 50.0 ||
			m["offset"] != 0.0 || m["nextOffset"] != nil || m["returned"] != 2.0 || m["note"] != server.Note ||
			m["dataAsOf"] != "2026-11-20T06:00:00Z" {
			t.Errorf("meta = %v", m)
		}
		if _, err := time.Parse(time.RFC3339, m["generatedAt"].(string)); err != nil {
			t.Errorf("generatedAt %v", m["generatedAt"])
		}

		p = decodePage(t, e.get(base+"/campaigns", e.all))
		if got, want := ids(p), []string{"cmp_a1", "cmp_a2"}; !slices.Equal(got, want) {
			t.Fatalf("campaigns %v, want %v", got, want)
		}
		for _, d := range p.Data {
			if got := keysOf(d); !slices.Equal(got, campaignFields) {
				t.Errorf("campaign fields %v", got)
			}
			if got := keysOf(d["account"].(map[string]any)); !slices.Equal(got, []string{"currency", "timezone"}) {
				t.Errorf("campaign.account fields %v", got)
			}
		}
		c1, c2 := p.Data[0], p.Data[1]
		if c1["dailyBudget"] != "25.00" || c1["lifetimeBudget"] != nil || c1["effectiveStatus"] != "ACTIVE" ||
			c1["platformAdAccountId"] != "act_a1" || c1["syncedAt"] != "2026-11-20T05:00:00Z" ||
			c1["account"].(map[string]any)["currency"] != "EUR" {
			t.Errorf("cmp_a1 = %v", c1)
		}
		if c2["lifetimeBudget"] != "1000.10" || c2["effectiveStatus"] != nil || c2["syncedAt"] != nil ||
			c2["account"].(map[string]any)["timezone"] != "America/New_York" {
			t.Errorf("cmp_a2 = %v", c2)
		}

		p = decodePage(t, e.get(base+"/insights?limit=100", e.all))
		if len(p.Data) != 15 {
			t.Fatalf("insights: %d rows, want 15", len(p.Data))
		}
		prev := ""
		for i, d := range p.Data {
			if got := keysOf(d); !slices.Equal(got, insightFields) {
				t.Errorf("insight fields %v", got)
			}
			date := d["date"].(string)
			if !strings.HasSuffix(date, "T00:00:00Z") {
				t.Errorf("date %q", date)
			}
			key := date + "|" + d["id"].(string)
			if i > 0 && (date > prev[:20] || (date == prev[:20] && key < prev)) {
				t.Errorf("order: %s after %s", key, prev)
			}
			prev = key
			if d["spend"] != "12.50" || d["ctr"] != "1.20" || d["cpc"] != "0.40" || d["cpm"] != "6.10" ||
				d["impressions"] != 2049.0 || d["reach"] != 1800.0 || d["clicks"] != 31.0 {
				t.Errorf("metrics %v", d)
			}
			switch d["purchaseMeasurement"] {
			case "unavailable":
				if d["purchases"] != nil || d["purchaseValue"] != nil || d["roas"] != nil {
					t.Errorf("unavailable row with purchase values: %v", d)
				}
				if d["campaignId"] != "cmp_a1" {
					t.Errorf("campaignId %v", d["campaignId"])
				}
			case "reported_purchase_value":
				if d["purchases"] != 2.0 || d["purchaseValue"] != 80.5 || d["roas"] != 6.44 || d["campaignId"] != nil {
					t.Errorf("reported row %v", d)
				}
			case "reported_purchase_count":
				if d["purchases"] != 1.0 || d["purchaseValue"] != nil {
					t.Errorf("count row %v", d)
				}
			}
		}
		if !strings.HasPrefix(p.Data[0]["date"].(string), today) {
			t.Errorf("newest date %v, want today %s", p.Data[0]["date"], today)
		}

		// accountId filters on every endpoint.
		p = decodePage(t, e.get(base+"/accounts?accountId=acc_a2", e.all))
		if got := ids(p); !slices.Equal(got, []string{"acc_a2"}) {
			t.Errorf("accounts?accountId: %v", got)
		}
		p = decodePage(t, e.get(base+"/campaigns?accountId=acc_a2", e.all))
		if got := ids(p); !slices.Equal(got, []string{"cmp_a2"}) {
			t.Errorf("campaigns?accountId: %v", got)
		}
		p = decodePage(t, e.get(base+"/insights?accountId=acc_a2", e.all))
		if len(p.Data) != 5 {
			t.Errorf("insights?accountId: %d rows", len(p.Data))
		}
		// Date window.
		d1 := time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly)
		p = decodePage(t, e.get(base+"/insights?from="+d1+"&to="+d1, e.all))
		if len(p.Data) != 3 {
			t.Errorf("one day: %d rows, want 3", len(p.Data))
		}
	})
}

func TestPagination(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		e := newEnv(t, b, opts{})
		var all []string
		offset := 0
		for range 20 {
			p := decodePage(t, e.get(fmt.Sprintf("%s/insights?limit=4&offset=%d", base, offset), e.all))
			all = append(all, ids(p)...)
			if p.Meta["returned"] != float64(len(p.Data)) || p.Meta["limit"] != 4.0 || p.Meta["offset"] != float64(offset) {
				t.Errorf("meta %v", p.Meta)
			}
			next := p.Meta["nextOffset"]
			if next == nil {
				break
			}
			if next != float64(offset+4) {
				t.Fatalf("nextOffset %v at offset %d", next, offset)
			}
			offset = int(next.(float64))
		}
		if len(all) != 15 {
			t.Fatalf("paged %d rows, want 15", len(all))
		}
		// A full final page has no next page; a page past the end is empty.
		p := decodePage(t, e.get(base+"/insights?limit=5&offset=10", e.all))
		if len(p.Data) != 5 || p.Meta["nextOffset"] != nil {
			t.Errorf("final page: %d rows, next %v", len(p.Data), p.Meta["nextOffset"])
		}
		p = decodePage(t, e.get(base+"/insights?offset=15", e.all))
		if len(p.Data) != 0 || p.Meta["returned"] != 0.0 || p.Meta["nextOffset"] != nil {
			t.Errorf("empty page %v", p)
		}
		if !strings.Contains(e.get(base+"/accounts?offset=10000", e.all).Body.String(), `"data":[]`) {
			t.Error("empty data must be [] not null")
		}
	})
}

// TestPipelineOrder sends requests that are wrong in two ways: each gets
// the status of the earlier step of DESIGN §3.
func TestPipelineOrder(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		e := newEnv(t, b, opts{})
		cases := []struct {
			name string
			r    req
			want int
		}{
			{"credential in query before missing key", req{path: base + "/accounts?api_key=x"}, 400},
			{"org override before bad key", req{path: base + "/accounts?orgId=org_b", key: "svc_live_bad"}, 400},
			{"org header before missing key", req{path: base + "/accounts", header: map[string]string{"X-Organization-Id": "org_b"}}, 400},
			{"missing key before bad query", req{path: base + "/accounts?limit=0"}, 401},
			{"bad key before missing scope", req{path: base + "/insights", key: "svc_live_" + strings.Repeat("A", 43)}, 401},
			{"missing scope before bad query", req{path: base + "/insights?limit=abc", key: e.accOnly}, 403},
			{"missing scope before unknown account", req{path: base + "/campaigns?accountId=nope", key: e.accOnly}, 403},
			{"bad query before unknown account", req{path: base + "/campaigns?accountId=nope&limit=0", key: e.all}, 400},
			{"unknown account", req{path: base + "/campaigns?accountId=nope", key: e.all}, 404},
			{"other organization's account is unknown", req{path: base + "/campaigns?accountId=acc_b1", key: e.all}, 404},
			{"ok", req{path: base + "/campaigns?accountId=acc_a1", key: e.all}, 200},
		}
		for _, tc := range cases {
			w := e.do(tc.r)
			if w.Code != tc.want {
				t.Errorf("%s: status %d, want %d: %s", tc.name, w.Code, tc.want, w.Body.String())
			}
			if w.Code != 200 {
				decodeError(t, w)
			}
		}
	})
}

func TestBadRequests(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		e := newEnv(t, b, opts{})
		today := time.Now().UTC()
		future := today.AddDate(0, 0, 1).Format(time.DateOnly)
		old := today.AddDate(0, 0, -90).Format(time.DateOnly)
		cases := []struct {
			query string
			want  []string // substrings, one per expected problem
		}{
			{"?token=abc", []string{"credentials must not be sent in the query string"}},
			{"?ApiKey=abc", []string{"credentials must not be sent"}},
			{"?q=svc_live_abc", []string{"credentials must not be sent"}},
			{"?organization_id=org_b", []string{"organization is taken from the API key"}},
			{"?Org=org_b", []string{"organization is taken from the API key"}},
			{"?foo=1&limit=0&offset=-1", []string{`unknown query parameter "foo"`, "limit must be between 1 and 100", "offset must be an integer between 0 and 10000, in plain digits"}},
			{"?limit=1&limit=2", []string{"limit is repeated"}},
			{"?limit=ten&offset=1.5", []string{"limit must be an integer", "offset must be an integer"}},
			{"?limit=101&offset=10001", []string{"limit must be between 1 and 100", "offset must be between 0 and 10000"}},
			{"?accountId=a.b", []string{"accountId must match"}},
			{"?from=2026-13-01&to=yesterday", []string{"from must be a date", "to must be a date"}},
			{"?to=" + future, []string{"to must not be in the future"}},
			{"?from=" + today.Format(time.DateOnly) + "&to=" + today.AddDate(0, 0, -1).Format(time.DateOnly), []string{"from must not be after to"}},
			{"?from=" + old, []string{"at most 90 are allowed"}},
			{"?%zz=1", []string{"malformed"}},
		}
		for _, tc := range cases {
			w := e.get(base+"/insights"+tc.query, e.all)
			if w.Code != http.StatusBadRequest {
				t.Errorf("%s: status %d, want 400", tc.query, w.Code)
				continue
			}
			body := decodeError(t, w)
			msgs, ok := body.Message.([]any)
			if !ok {
				t.Errorf("%s: message is not a list: %v", tc.query, body.Message)
				continue
			}
			if len(msgs) != len(tc.want) {
				t.Errorf("%s: %d problems %v, want %d", tc.query, len(msgs), msgs, len(tc.want))
			}
			all := fmt.Sprint(msgs)
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("%s: message %q lacks %q", tc.query, all, w)
				}
			}
		}
		// from/to are insights-only.
		if w := e.get(base+"/accounts?from=2026-01-01", e.all); w.Code != 400 {
			t.Errorf("from on accounts: %d", w.Code)
		}
		// 89 days back is a 90-day range: allowed.
		if w := e.get(base+"/insights?from="+today.AddDate(0, 0, -89).Format(time.DateOnly), e.all); w.Code != 200 {
			t.Errorf("90-day range: %d %s", w.Code, w.Body.String())
		}
	})
}

func TestAuthErrors(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		e := newEnv(t, b, opts{})
		var first string
		for _, h := range []string{"", "Bearer", "Bearer ", "Basic abc", "Bearer svc_live_short",
			"Bearer svc_live_" + strings.Repeat("A", 43), "Bearer " + e.all + "x"} {
			w := e.do(req{path: base + "/accounts", header: map[string]string{"Authorization": h}})
			if w.Code != http.StatusUnauthorized {
				t.Errorf("%q: status %d", h, w.Code)
				continue
			}
			msg := decodeError(t, w).Message.(string)
			if first == "" {
				first = msg
			} else if msg != first {
				t.Errorf("401 messages differ: %q vs %q", msg, first)
			}
			if w.Header().Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		}
		if w := e.get(base+"/accounts", strings.ToLower("")+e.all); w.Code != 200 {
			t.Errorf("valid key: %d", w.Code)
		}
		for _, ep := range []string{"/campaigns", "/insights"} {
			w := e.get(base+ep, e.accOnly)
			if w.Code != http.StatusForbidden {
				t.Errorf("%s without scope: %d", ep, w.Code)
			}
			decodeError(t, w)
		}
	})
}

func TestOtherResponses(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		e := newEnv(t, b, opts{})
		for _, tc := range []struct {
			method, path string
			want         int
		}{
			{"GET", "/nope", 404},
			{"GET", base + "/nope", 404},
			{"GET", base + "/accounts/", 404},
			{"POST", base + "/accounts", 405},
			{"DELETE", base + "/insights", 405},
			{"PUT", "/healthz", 405},
		} {
			w := e.do(req{method: tc.method, path: tc.path, key: e.all})
			if w.Code != tc.want {
				t.Errorf("%s %s: %d, want %d", tc.method, tc.path, w.Code, tc.want)
			}
			decodeError(t, w)
			if w.Header().Get("Cache-Control") != "no-store" || w.Header().Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s %s: headers %v", tc.method, tc.path, w.Header())
			}
			if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("content type %q", ct)
			}
		}
		w := e.get(base+"/accounts", e.all)
		for _, h := range []string{"Cache-Control", "X-Content-Type-Options", "RateLimit-Policy", "RateLimit", "X-Request-Id"} {
			if w.Header().Get(h) == "" {
				t.Errorf("200 lacks %s", h)
			}
		}
		if got := w.Header().Get("RateLimit-Policy"); got != `"key";q=60;w=60, "org";q=120;w=60, "ip";q=180;w=60` {
			t.Errorf("RateLimit-Policy %q", got)
		}
		if got := w.Header().Get("RateLimit"); !strings.HasPrefix(got, `"key";r=59;t=1, "org";r=119;t=1, "ip";r=`) {
			t.Errorf("RateLimit %q", got)
		}
		if w.Header().Get("Strict-Transport-Security") != "" {
			t.Error("HSTS on plain HTTP")
		}
		for _, p := range []string{"/healthz", "/readyz", base + "/openapi.json"} {
			if w := e.get(p, ""); w.Code != 200 {
				t.Errorf("%s: %d %s", p, w.Code, w.Body.String())
			}
		}
	})
}

func TestTenancy(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		e := newEnv(t, b, opts{})
		for _, tc := range []struct {
			key, own, other string
		}{{e.all, "_a", "_b1"}, {e.b, "_b", "_a"}} {
			for _, path := range []string{"/accounts", "/campaigns", "/insights?limit=100",
				"/accounts?accountId=acc_a1", "/accounts?accountId=acc_b1", "/campaigns?accountId=acc_a1",
				"/campaigns?accountId=acc_b1", "/insights?accountId=acc_a1", "/insights?accountId=acc_b1"} {
				w := e.get(base+path, tc.key)
				for _, prefix := range []string{"acc", "cmp", "ins", "act"} {
					if strings.Contains(w.Body.String(), prefix+tc.other) {
						t.Errorf("%s with key of org%s sees org%s rows: %.200s", path, tc.own, tc.other, w.Body.String())
					}
				}
				if strings.Contains(path, "acc"+tc.other) && w.Code != http.StatusNotFound {
					t.Errorf("%s with key of org%s: %d, want 404", path, tc.own, w.Code)
				}
				if !strings.Contains(path, "acc"+tc.other) && w.Code != 200 {
					t.Errorf("%s: %d", path, w.Code)
				}
			}
		}
		if p := decodePage(t, e.get(base+"/insights?limit=100", e.b)); len(p.Data) != 10 {
			t.Errorf("org_b insights: %d", len(p.Data))
		}
	})
}

func TestCanaries(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		e := newEnv(t, b, opts{})
		var bodies []string
		for _, key := range []string{e.all, e.b, e.admin} {
			for _, path := range []string{"/accounts", "/campaigns", "/insights?limit=100", "/accounts?accountId=acc_a1",
				"/campaigns?accountId=acc_b1", "/insights?accountId=acc_b1&limit=100", "/nope", "/accounts?limit=0"} {
				w := e.get(base+path, key)
				var hdr strings.Builder
				for k, v := range w.Header() {
					hdr.WriteString(k + ": " + strings.Join(v, ",") + "\n")
				}
				bodies = append(bodies, w.Body.String(), hdr.String())
			}
		}
		bodies = append(bodies, e.logs.String())
		for _, body := range bodies {
			for _, c := range testenv.Canaries {
				if strings.Contains(body, c) {
					t.Errorf("canary %q leaked: %.300s", c, body)
				}
			}
		}
	})
}

func TestKeyLifecycle(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		e := newEnv(t, b, opts{})
		ctx := t.Context()
		if w := e.get(base+"/accounts", e.all); w.Code != 200 {
			t.Fatalf("before: %d", w.Code)
		}
		if _, err := e.keys.Revoke(ctx, "org_a", testenv.AdminA, e.allID); err != nil {
			t.Fatal(err)
		}
		if w := e.get(base+"/accounts", e.all); w.Code != http.StatusUnauthorized {
			t.Errorf("revoked key: %d", w.Code)
		}

		// Demotion of the issuer: 403 on the next request.
		if w := e.get(base+"/accounts", e.admin); w.Code != 200 {
			t.Fatalf("admin key: %d", w.Code)
		}
		demote := func(role string, removed *time.Time) {
			org := keys.Organization{ID: "org_a", Name: "Acme", SubscriptionStatus: keys.SubscriptionActive}
			if err := keys.UpsertOrganization(ctx, e.db, org, []keys.Member{{UserID: testenv.AdminA, Role: role, RemovedAt: removed}}, time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		demote(keys.RoleMember, nil)
		if w := e.get(base+"/accounts", e.admin); w.Code != http.StatusForbidden {
			t.Errorf("demoted issuer: %d", w.Code)
		}
		demote(keys.RoleAdmin, nil)
		if w := e.get(base+"/accounts", e.admin); w.Code != 200 {
			t.Errorf("re-promoted issuer: %d", w.Code)
		}
		now := time.Now()
		demote(keys.RoleAdmin, &now)
		if w := e.get(base+"/accounts", e.admin); w.Code != http.StatusForbidden {
			t.Errorf("removed issuer: %d", w.Code)
		}

		// Expiry: a 1-day key stops working once the day has passed.
		k, err := e.keys.Create(ctx, keys.CreateRequest{OrganizationID: "org_b", UserID: testenv.OwnerB, Name: "short",
			Scopes: allScopes, ExpiresInDays: 1})
		if err != nil {
			t.Fatal(err)
		}
		if w := e.get(base+"/accounts", k.Key); w.Code != 200 {
			t.Fatalf("fresh key: %d", w.Code)
		}
		e.clock.Advance(24*time.Hour + time.Second)
		if w := e.get(base+"/accounts", k.Key); w.Code != http.StatusUnauthorized {
			t.Errorf("expired key: %d", w.Code)
		}
	})
}

// TestDefaultKeyLimit: the 61st request of one key within a minute is 429.
func TestDefaultKeyLimit(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		e := newEnv(t, b, opts{})
		start := time.Now()
		for i := 1; i <= 60; i++ {
			if w := e.get(base+"/accounts", e.all); w.Code != 200 {
				t.Fatalf("request %d: %d %s", i, w.Code, w.Body.String())
			}
		}
		// The bucket refills one request a second (GCRA, 60 a minute): on a
		// loaded machine the 60 requests take seconds, and that many more may
		// pass; not one more.
		w := e.get(base+"/accounts", e.all)
		for extra := 0; w.Code == 200; extra++ {
			if refilled := int(time.Since(start) / time.Second); extra >= refilled {
				t.Fatalf("request %d: 200 after %s; the bucket refilled at most %d", 61+extra, time.Since(start), refilled)
			}
			w = e.get(base+"/accounts", e.all)
		}
		if w.Code != http.StatusTooManyRequests {
			t.Fatalf("after 60 requests: %d", w.Code)
		}
		msg := decodeError(t, w).Message.(string)
		if !strings.Contains(msg, "per-key") || !strings.Contains(msg, "60 seconds") {
			t.Errorf("429 message %q", msg)
		}
		if w.Header().Get("Retry-After") != "60" || !strings.HasPrefix(w.Header().Get("RateLimit"), `"key";r=0;t=`) {
			t.Errorf("429 headers %v", w.Header())
		}
		// Another key of the organization is not limited by this one's bucket.
		if w := e.get(base+"/accounts", e.admin); w.Code != 200 {
			t.Errorf("other key: %d", w.Code)
		}
	})
}

func TestOrgLimit(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		e := newEnv(t, b, opts{limits: server.Limits{KeyPerMinute: 5, OrgPerMinute: 3, IPPerMinute: 100}})
		for i := range 3 {
			key := e.all
			if i == 1 {
				key = e.admin
			}
			if w := e.get(base+"/accounts", key); w.Code != 200 {
				t.Fatalf("request %d: %d", i, w.Code)
			}
		}
		w := e.get(base+"/accounts", e.accOnly)
		if w.Code != http.StatusTooManyRequests || !strings.Contains(decodeError(t, w).Message.(string), "per-organization") {
			t.Errorf("4th request of org_a: %d %s", w.Code, w.Body.String())
		}
		if w := e.get(base+"/accounts", e.b); w.Code != 200 {
			t.Errorf("org_b: %d", w.Code)
		}
	})
}

func TestIPLimit(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		e := newEnv(t, b, opts{limits: server.Limits{KeyPerMinute: 100, OrgPerMinute: 100, IPPerMinute: 3}})
		for i := range 3 {
			if w := e.do(req{path: base + "/accounts", ip: "198.51.100.7"}); w.Code != 401 {
				t.Fatalf("request %d: %d", i, w.Code) // unauthenticated requests count too
			}
		}
		w := e.do(req{path: base + "/accounts", key: e.all, ip: "198.51.100.7"})
		if w.Code != http.StatusTooManyRequests || !strings.Contains(decodeError(t, w).Message.(string), "per-IP") {
			t.Errorf("4th request of the IP: %d %s", w.Code, w.Body.String())
		}
		if w := e.do(req{path: base + "/accounts", key: e.all, ip: "198.51.100.8"}); w.Code != 200 {
			t.Errorf("other IP: %d", w.Code)
		}
		// X-Forwarded-For from an untrusted peer is ignored.
		w = e.do(req{path: base + "/accounts", key: e.all, ip: "198.51.100.7", header: map[string]string{"X-Forwarded-For": "203.0.113.9"}})
		if w.Code != http.StatusTooManyRequests {
			t.Errorf("spoofed X-Forwarded-For: %d", w.Code)
		}
	})
}

func TestTrustedProxy(t *testing.T) {
	b := dbtest.SQLite(t)
	if err := testenv.Migrate(t.Context(), b.DB); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, b, opts{limits: server.Limits{KeyPerMinute: 100, OrgPerMinute: 100, IPPerMinute: 1}, trusted: []string{"10.0.0.0/8"}})
	for i, xff := range []string{"203.0.113.1", "203.0.113.2"} {
		w := e.do(req{path: base + "/accounts", key: e.all, ip: "10.1.2.3", header: map[string]string{"X-Forwarded-For": xff}})
		if w.Code != 200 {
			t.Errorf("client %d behind the proxy: %d", i, w.Code)
		}
	}
	w := e.do(req{path: base + "/accounts", key: e.all, ip: "10.1.2.3", header: map[string]string{"X-Forwarded-For": "203.0.113.1"}})
	if w.Code != http.StatusTooManyRequests {
		t.Errorf("second request of a client behind the proxy: %d", w.Code)
	}
}

// TestFailClosed: a Redis that refuses connections, or accepts them and never
// answers, gives 503 within the deadline; when it is back, 200.
func TestFailClosed(t *testing.T) {
	redisURL := testenv.RedisURL(t)
	target := strings.TrimPrefix(redisURL, "redis://")
	target, _, _ = strings.Cut(target, "/")
	if at := strings.LastIndex(target, "@"); at >= 0 {
		target = target[at+1:]
	}
	proxy := testenv.NewProxy(t, target)
	proxied := strings.Replace(redisURL, target, proxy.Addr(), 1)
	lim, err := ratelimit.NewRedis(proxied, testenv.Namespace(), 250*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer lim.Close()
	b := dbtest.Postgres(t)
	if err := testenv.Migrate(t.Context(), b.DB); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, b, opts{limiter: lim})
	if w := e.get(base+"/accounts", e.all); w.Code != 200 {
		t.Fatalf("up: %d %s", w.Code, w.Body.String())
	}
	for _, mode := range []string{"down", "hang"} {
		proxy.Set(mode)
		start := time.Now()
		w := e.get(base+"/accounts", e.all)
		took := time.Since(start)
		if w.Code != http.StatusServiceUnavailable {
			t.Errorf("%s: %d %s", mode, w.Code, w.Body.String())
		}
		msg := decodeError(t, w).Message.(string)
		if !strings.Contains(msg, "protection service") || strings.Contains(msg, "dial") || strings.Contains(msg, "i/o") {
			t.Errorf("%s: message %q", mode, msg)
		}
		if took > time.Second {
			t.Errorf("%s: 503 after %s, want within the 250 ms deadline", mode, took)
		}
		if w := e.get("/readyz", ""); w.Code != http.StatusServiceUnavailable {
			t.Errorf("%s: readyz %d", mode, w.Code)
		}
	}
	proxy.Set("up")
	if w := e.get(base+"/accounts", e.all); w.Code != 200 {
		t.Errorf("back up: %d %s", w.Code, w.Body.String())
	}
}

// TestDatabaseDown: a database that cannot be reached gives 503 with no
// driver message.
func TestDatabaseDown(t *testing.T) {
	b, proxy := proxiedPostgres(t)
	e := newEnv(t, b, opts{})
	if w := e.get(base+"/accounts", e.all); w.Code != http.StatusOK {
		t.Fatalf("up: %d %s", w.Code, w.Body.String())
	}
	proxy.Set("down")
	w := e.get(base+"/accounts", e.all)
	if w.Code != http.StatusServiceUnavailable {
		t.Fatalf("%d %s", w.Code, w.Body.String())
	}
	if msg := decodeError(t, w).Message.(string); strings.Contains(msg, "sql") || strings.Contains(msg, "dial") || strings.Contains(msg, "EOF") {
		t.Errorf("message %q", msg)
	}
}

func TestLogs(t *testing.T) {
	b := dbtest.SQLite(t)
	if err := testenv.Migrate(t.Context(), b.DB); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, b, opts{})
	e.get(base+"/accounts?limit=2", e.all)
	e.get(base+"/accounts?api_key=supersecretvalue", "")
	e.get(base+"/accounts?x="+e.admin, "")
	e.do(req{path: base + "/accounts", header: map[string]string{"Authorization": "Bearer " + e.b}})
	logs := e.logs.String()
	for _, secret := range []string{e.all, e.admin, e.b, "supersecretvalue", "svc_live_", "Bearer"} {
		if strings.Contains(logs, secret) {
			t.Errorf("log contains %q:\n%s", secret, logs)
		}
	}
	for _, want := range []string{`"request_id"`, `"status":200`, `"latency_ms"`, `"key_id":"key_`, `"organization_id":"org_a"`, `"query":"limit=2"`, `"query_redacted":true`} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %s:\n%s", want, logs)
		}
	}
}

var _ = context.Background

// TestEmptyOrganization: an organization with no imported rows gets empty
// pages and the documented dataAsOf fallback.
func TestEmptyOrganization(t *testing.T) {
	b := dbtest.SQLite(t)
	if err := testenv.Migrate(t.Context(), b.DB); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, b, opts{})
	org := keys.Organization{ID: "org_empty", Name: "Empty", SubscriptionStatus: keys.SubscriptionActive}
	if err := keys.UpsertOrganization(t.Context(), b.DB, org, []keys.Member{{UserID: "u_empty", Role: keys.RoleOwner}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	k, err := e.keys.Create(t.Context(), keys.CreateRequest{OrganizationID: "org_empty", UserID: "u_empty", Name: "x",
		Scopes: allScopes, ExpiresInDays: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/accounts", "/campaigns", "/insights"} {
		pg := decodePage(t, e.get(base+p, k.Key))
		if len(pg.Data) != 0 || pg.Meta["dataAsOf"] != "1970-01-01T00:00:00Z" || pg.Meta["nextOffset"] != nil {
			t.Errorf("%s: %v", p, pg)
		}
	}
}

// TestIPRefusalIsRemembered: once the per-IP bucket refused, the following
// requests of that IP are refused alike without a key lookup (no database
// work for a flood), while other IPs go on as before.
func TestIPRefusalIsRemembered(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		var lookups atomic.Int64
		// 2 per minute: the refusal lasts about 30 s, far longer than this test.
		e := newEnv(t, b, opts{limits: server.Limits{KeyPerMinute: 100, OrgPerMinute: 100, IPPerMinute: 2}, lookups: &lookups})
		const ip = "198.51.100.20"
		for i := range 2 {
			if w := e.do(req{path: base + "/accounts", key: e.all, ip: ip}); w.Code != 200 {
				t.Fatalf("request %d: %d", i, w.Code)
			}
		}
		w := e.do(req{path: base + "/accounts", key: e.all, ip: ip})
		if w.Code != http.StatusTooManyRequests {
			t.Fatalf("3rd request: %d", w.Code)
		}
		first := w.Header()
		before := lookups.Load()
		for i := range 5 {
			w := e.do(req{path: base + "/accounts", key: e.all, ip: ip})
			if w.Code != http.StatusTooManyRequests || !strings.Contains(decodeError(t, w).Message.(string), "per-IP") ||
				w.Header().Get("Retry-After") != "60" || !strings.HasPrefix(w.Header().Get("RateLimit"), `"ip";r=0;t=`) ||
				w.Header().Get("RateLimit-Policy") != first.Get("RateLimit-Policy") {
				t.Errorf("refusal %d: %d %v %s", i, w.Code, w.Header(), w.Body)
			}
		}
		if n := lookups.Load() - before; n != 0 {
			t.Errorf("%d key lookups for requests of an IP already refused, want 0", n)
		}
		if w := e.do(req{path: base + "/accounts", key: e.all, ip: "198.51.100.21"}); w.Code != 200 {
			t.Errorf("another IP: %d", w.Code)
		}
	})
}

// TestAdmission: with MaxInFlight places, no more than that many requests
// are past the limiter at once (the others wait, then are all answered), a
// request whose client leaves while waiting is logged as 499 at info (not an
// ERROR 503), and one that waits longer than the database deadline gets 503
// with Retry-After.
func TestAdmission(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		var inside, most atomic.Int64
		entered := make(chan struct{}, 16)
		var hold atomic.Pointer[chan struct{}]
		e := newEnv(t, b, opts{maxInFlight: 2, dbDeadline: 2 * time.Second, onPage: func() {
			n := inside.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			entered <- struct{}{}
			if h := hold.Load(); h != nil {
				<-*h
			}
			inside.Add(-1)
		}})
		waitEntered := func(n int) {
			t.Helper()
			for i := range n {
				select {
				case <-entered:
				case <-time.After(10 * time.Second):
					t.Fatalf("only %d of %d requests reached the store", i, n)
				}
			}
		}
		release := make(chan struct{})
		hold.Store(&release)
		codes := make(chan int, 6)
		for range 6 {
			go func() { codes <- e.do(req{path: base + "/accounts", key: e.all}).Code }()
		}
		waitEntered(2)
		select {
		case <-entered:
			t.Fatalf("a third request reached the store while 2 places were taken")
		case <-time.After(200 * time.Millisecond):
		}

		// A client that gives up while waiting.
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		w := e.do(req{ctx: ctx, path: base + "/accounts", key: e.all})
		if w.Code != 499 {
			t.Errorf("client gone while waiting: %d, want 499", w.Code)
		}
		logs := e.logs.String()
		if strings.Contains(logs, `"level":"ERROR"`) || strings.Contains(logs, `"status":503`) || !strings.Contains(logs, `"level":"INFO","msg":"request"`) ||
			!strings.Contains(logs, `"status":499`) {
			t.Errorf("a client that left is logged as a failure, or not at info:\n%s", logs)
		}

		hold.Store(nil)
		close(release)
		waitEntered(4)
		for range 6 {
			if c := <-codes; c != http.StatusOK {
				t.Errorf("queued request: %d", c)
			}
		}
		if m := most.Load(); m != 2 {
			t.Errorf("%d requests were past the limiter at once, want 2", m)
		}
	})
}

// TestKeyExpiryHeader: every response to a request whose key was recognised
// carries the key's expiry (RFC 3339, UTC); others do not.
func TestKeyExpiryHeader(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		e := newEnv(t, b, opts{})
		var expires time.Time
		if err := e.db.NewSelect().Table("developer_keys").Column("expires_at").Where("id = ?", e.allID).Scan(t.Context(), &expires); err != nil {
			t.Fatal(err)
		}
		want := expires.UTC().Format(time.RFC3339)
		for _, path := range []string{"/accounts", "/insights?limit=0", "/campaigns?accountId=nope"} {
			w := e.get(base+path, e.all)
			if got := w.Header().Get(server.KeyExpiresHeader); got != want {
				t.Errorf("GET %s (%d): %s = %q, want %q", path, w.Code, server.KeyExpiresHeader, got, want)
			}
		}
		if got := e.get(base+"/accounts", "").Header().Get(server.KeyExpiresHeader); got != "" {
			t.Errorf("without a key: %s = %q, want none", server.KeyExpiresHeader, got)
		}
	})
}

// TestAdmissionDeadline: a request waits for a place at most the database
// deadline, then gets 503 with Retry-After; the limiter ran before it waited.
func TestAdmissionDeadline(t *testing.T) {
	b := dbtest.SQLite(t)
	if err := testenv.Migrate(t.Context(), b.DB); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	var first atomic.Bool
	e := newEnv(t, b, opts{maxInFlight: 1, dbDeadline: 300 * time.Millisecond, onPage: func() {
		if first.CompareAndSwap(false, true) {
			entered <- struct{}{}
			<-release
		}
	}})
	done := make(chan int)
	go func() { done <- e.get(base+"/accounts", e.all).Code }()
	<-entered
	start := time.Now()
	w := e.get(base+"/accounts", e.all)
	if took := time.Since(start); w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" || took > 2*time.Second {
		t.Errorf("waiting past the deadline: %d Retry-After %q after %s", w.Code, w.Header().Get("Retry-After"), took)
	}
	if w.Header().Get("RateLimit") == "" {
		t.Errorf("no RateLimit header: the limiter did not run before the queue")
	}
	close(release)
	<-done
}

// TestSlowReaderHoldsNoPlace: a request whose client does not read its
// page (the write blocks) has left the admission gate: with one place, the
// next request is served meanwhile.
func TestSlowReaderHoldsNoPlace(t *testing.T) {
	b := dbtest.SQLite(t)
	if err := testenv.Migrate(t.Context(), b.DB); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, b, opts{maxInFlight: 1, dbDeadline: 300 * time.Millisecond})
	hr := httptest.NewRequestWithContext(t.Context(), http.MethodGet, base+"/accounts", nil)
	hr.RemoteAddr = "192.0.2.10:40000"
	hr.Header.Set("Authorization", "Bearer "+e.all)
	slow := &blockingWriter{ResponseRecorder: httptest.NewRecorder(), writing: make(chan struct{}), release: make(chan struct{})}
	done := make(chan struct{})
	go func() { defer close(done); e.h.ServeHTTP(slow, hr) }()
	select {
	case <-slow.writing:
	case <-time.After(10 * time.Second):
		t.Fatal("the first request never wrote its page")
	}
	w := e.get(base+"/accounts", e.all)
	close(slow.release)
	<-done
	if w.Code != http.StatusOK {
		t.Errorf("while a client did not read its page, the next request got %d, want 200 (the gate's place was still held)", w.Code)
	}
	if slow.Code != http.StatusOK {
		t.Errorf("the slow reader's request: %d", slow.Code)
	}
}

// blockingWriter is a client that does not read: Write blocks until release.
type blockingWriter struct {
	*httptest.ResponseRecorder
	writing, release chan struct{}
	once             sync.Once
}

func (w *blockingWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.writing) })
	<-w.release
	return w.ResponseRecorder.Write(p)
}

// TestEmptyPageDataIsArray: a page with no rows says "data":[] (SPEC §2: an
// array, required), never null, on every endpoint and backend.
func TestEmptyPageDataIsArray(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		e := newEnv(t, b, opts{})
		for _, path := range []string{"/accounts?offset=10000", "/campaigns?offset=10000", "/insights?from=2001-01-01&to=2001-01-31", "/insights?offset=10000"} {
			w := e.get(base+path, e.all)
			if w.Code != http.StatusOK || !strings.HasPrefix(w.Body.String(), `{"data":[],`) {
				t.Errorf("GET %s: %d %.80s", path, w.Code, w.Body.String())
			}
		}
	})
}
