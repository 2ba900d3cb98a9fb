package e2e

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/adsnap/svc/e2e/internal/harness"
	"github.com/adsnap/svc/sdk-go/svctest"
)

// doubleFixtures are the fixture files of the tests that use sdk-go's
// svctest: svc-cli's internal/testapi and svc-mcp's test API.
var doubleFixtures = []string{
	"svc-cli/internal/testapi/testdata/fixtures.json",
	"svc-mcp/testdata/fixtures.json",
}

// testDouble checks svctest, the test double of the API that svc-cli's and
// svc-mcp's tests run against, against svc-api: the same requests get the
// same status codes, the same error messages and the same meta.note, and
// every answer of the double, over each module's fixtures, matches
// openapi.yaml.
func testDouble(t *testing.T, e *env) {
	client := harness.ClientFrom("127.0.0.61")
	key, accountsOnly := e.keys["alpha_aci"], e.keys["alpha_a"]
	today := e.fix.Today
	requests := []struct {
		name, path, key string
	}{
		{"good page", "/accounts?limit=2", key},
		{"good insights page", "/insights?limit=3&from=" + day(today, -6) + "&to=" + day(today, 0), key},
		{"unknown parameter", "/campaigns?foo=1&limit=5", key},
		{"date parameter of insights on campaigns", "/campaigns?from=" + day(today, -1), key},
		{"repeated parameter", "/accounts?limit=1&limit=2", key},
		{"bad date", "/insights?from=2026-13-01", key},
		{"bad day of month", "/insights?to=2026-02-30", key},
		{"date in the future", "/insights?to=" + day(today, 1), key},
		{"both dates in the future", "/insights?from=" + day(today, 1) + "&to=" + day(today, 2), key},
		{"from after to", "/insights?from=" + day(today, -1) + "&to=" + day(today, -2), key},
		{"range of 90 days", "/insights?limit=1&from=" + day(today, -89) + "&to=" + day(today, 0), key},
		{"range of 91 days", "/insights?from=" + day(today, -90) + "&to=" + day(today, 0), key},
		{"only from, 91 days to today", "/insights?from=" + day(today, -90), key},
		{"bad limit", "/accounts?limit=500", key},
		{"limit and offset not numbers", "/accounts?limit=x&offset=-1", key},
		{"limit and offset not in plain digits", "/accounts?limit=%2B5&offset=010", key},
		{"offset minus zero", "/accounts?offset=-0", key},
		{"malformed accountId", "/campaigns?accountId=a%20b", key},
		{"accountId not found", "/campaigns?accountId=acc_nope", key},
		{"missing scope", "/campaigns", accountsOnly},
		{"no key", "/accounts", ""},
		{"unknown key", "/accounts", "svc_live_" + strings.Repeat("A", 43)},
		{"unknown endpoint", "/nope", key},
		// The changes feed (issue 42): a first sync's page, and refusals.
		{"changes page", "/insights/changes?limit=2", key},
		{"changes limit and unknown", "/insights/changes?limit=0&offset=1", key},
		{"changes with accountId and from", "/insights/changes?accountId=acc_1&from=2026-01-01", key},
		{"changes since and cursor", "/insights/changes?since=abc&cursor=def", key},
		{"changes unknown token", "/insights/changes?since=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", key},
		{"changes unknown cursor", "/insights/changes?cursor=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", key},
		{"changes token not URL-safe", "/insights/changes?since=a%2Bb", key},
		{"changes missing scope", "/insights/changes", accountsOnly},
	}

	for _, file := range doubleFixtures {
		t.Run(filepath.Dir(file), func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(harness.RepoRoot(), file))
			if err != nil {
				t.Fatal(err)
			}
			f, err := svctest.ParseFixtures(b)
			if err != nil {
				t.Fatal(err)
			}
			// The double with the keys of svc-api: every scope, and
			// accounts:read only.
			doubles := map[string]*svctest.API{}
			for k, scopes := range map[string][]string{key: nil, accountsOnly: {"accounts:read"}} {
				doubles[k] = &svctest.API{Key: k, Scopes: scopes, Accounts: f.Accounts, Campaigns: f.Campaigns, Insights: f.Insights,
					DataAsOf: "2026-11-20T06:00:00Z", GeneratedAt: "2026-11-20T07:00:00Z"}
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				d, ok := doubles[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
				if !ok {
					d = doubles[key]
				}
				d.ServeHTTP(w, r)
			}))
			defer srv.Close()
			contract, err := harness.LoadContract(t.Context(), []string{srv.URL})
			if err != nil {
				t.Fatal(err)
			}

			for _, rq := range requests {
				real, realBody := e.get(t, client, e.replicas[0].URL+"/api/v1/developer"+rq.path, rq.key)
				fake, fakeBody := e.get(t, client, srv.URL+"/api/v1/developer"+rq.path, rq.key)
				if rq.path != "/nope" {
					if err := contract.Check(t.Context(), fake, fakeBody); err != nil {
						t.Errorf("%s: the double's answer: %v", rq.name, err)
					}
				}
				if real.StatusCode != fake.StatusCode {
					t.Errorf("%s: GET %s: svc-api %d %s, the double %d %s", rq.name, rq.path, real.StatusCode, realBody, fake.StatusCode, fakeBody)
					continue
				}
				if real.StatusCode == http.StatusOK {
					rm, fm := metaOf(t, realBody), metaOf(t, fakeBody)
					if rm["note"] != fm["note"] {
						t.Errorf("%s: meta.note: svc-api %q, the double %q", rq.name, rm["note"], fm["note"])
					}
					if !slices.Equal(sortedKeys(rm), sortedKeys(fm)) {
						t.Errorf("%s: meta fields: svc-api %v, the double %v", rq.name, sortedKeys(rm), sortedKeys(fm))
					}
					continue
				}
				if rl, fl := isList(realBody), isList(fakeBody); rl != fl {
					t.Errorf("%s: message is a list: svc-api %v, the double %v", rq.name, rl, fl)
				}
				if rmsg, fmsg := messagesOf(t, realBody), messagesOf(t, fakeBody); !slices.Equal(rmsg, fmsg) {
					t.Errorf("%s: GET %s: messages:\nsvc-api    %q\nthe double %q", rq.name, rq.path, rmsg, fmsg)
				}
			}
		})
	}
}

// metaOf returns the meta object of an envelope.
func metaOf(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("not an envelope: %s", body)
	}
	return env.Meta
}

// messagesOf returns the message of an error body (SPEC §7) as a list.
func messagesOf(t *testing.T, body []byte) []string {
	t.Helper()
	var eb struct {
		Message json.RawMessage `json:"message"`
	}
	if err := json.Unmarshal(body, &eb); err != nil {
		t.Fatalf("not an error body: %s", body)
	}
	var one string
	if json.Unmarshal(eb.Message, &one) == nil {
		return []string{one}
	}
	var many []string
	if err := json.Unmarshal(eb.Message, &many); err != nil {
		t.Fatalf("message is neither a string nor a list of strings: %s", body)
	}
	return many
}

// isList reports whether the message of an error body is a list.
func isList(body []byte) bool {
	var eb struct {
		Message any `json:"message"`
	}
	_ = json.Unmarshal(body, &eb)
	_, ok := eb.Message.([]any)
	return ok
}

func sortedKeys(m map[string]any) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
