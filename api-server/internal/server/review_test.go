package server_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/server"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
)

// TestReadyzTerse (issue 30, finding 2): with read replicas whose URLs carry
// a password and an sslpassword, the public /readyz says ready or not per
// dependency and per replica, and nothing of their URLs; the operators'
// detail (Handlers.Readiness, on the metrics listener) and the log name each
// replica by its redacted URL: user, host, port, database, no secret and no
// query parameter.
func TestReadyzTerse(t *testing.T) {
	b := dbtest.Postgres(t)
	if err := testenv.Migrate(t.Context(), b.DB); err != nil {
		t.Fatal(err)
	}
	st, err := store.New(t.Context(), b.Handle)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// A replica that does not answer, and the primary named as a replica
	// (it answers, and is not in recovery): both skipped, for two reasons.
	down := "postgres://replicauser:replicapass@127.0.0.1:1/replicadb?sslmode=disable&sslpassword=sslsecret&application_name=probe"
	u, err := url.Parse(b.URL)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), "replicapass")
	q := u.Query()
	q.Set("sslpassword", "sslsecret")
	u.RawQuery = q.Encode()
	logs := &syncBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, nil))
	rt := store.NewRouted(t.Context(), st, store.ReplicaOptions{URLs: []string{down, u.String()}}, log)
	defer rt.Close()
	hs, err := server.NewHandlers(server.Config{Keys: keys.NewAuthenticator(b.Handle, keys.AuthenticatorOptions{}),
		Store: rt, Limiter: ratelimit.NewMemory(nil), Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{"replicapass", "sslsecret", "sslpassword", "application_name", "search_path"}

	w := httptest.NewRecorder()
	hs.API.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	want := `{"checks":{"database":"ok","databaseReplicas":["unavailable","unavailable"],"rateLimitStore":"ok"},"status":"ready"}`
	if got := strings.TrimSpace(w.Body.String()); w.Code != http.StatusOK || got != want {
		t.Errorf("public /readyz: %d %s\nwant 200 %s", w.Code, got, want)
	}

	w = httptest.NewRecorder()
	hs.Readiness.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	var detail struct {
		Checks struct {
			Replicas []store.ReplicaStatus `json:"databaseReplicas"`
		} `json:"checks"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &detail); err != nil || w.Code != http.StatusOK || len(detail.Checks.Replicas) != 2 {
		t.Fatalf("readiness detail: %d %s (%v)", w.Code, w.Body, err)
	}
	if r := detail.Checks.Replicas[0]; r.Name != "postgres://replicauser@127.0.0.1:1/replicadb" || r.Healthy || r.Reason != "unreachable" {
		t.Errorf("detail of the replica that does not answer: %+v", r)
	}
	if r := detail.Checks.Replicas[1]; !strings.HasPrefix(r.Name, "postgres://"+u.User.Username()+"@") || r.Healthy || !strings.Contains(r.Reason, "not a replica") {
		t.Errorf("detail of the primary named as a replica: %+v", r)
	}
	for _, s := range secrets {
		if strings.Contains(w.Body.String(), s) {
			t.Errorf("readiness detail shows %q: %s", s, w.Body)
		}
		if strings.Contains(logs.String(), s) {
			t.Errorf("the log shows %q:\n%s", s, logs)
		}
	}
	if !strings.Contains(logs.String(), "replicauser@127.0.0.1:1/replicadb") {
		t.Errorf("the log does not name the replica that does not answer:\n%s", logs)
	}
}

// TestIPv6Grouping (issue 30, finding 9): the per-IP limit counts an IPv6
// client by its /64 (the prefix configurable; 128 counts each address), an
// IPv4 client by its address; a refusal remembered for one address of a
// /64 holds for the others.
func TestIPv6Grouping(t *testing.T) {
	limits := server.Limits{KeyPerMinute: 1000, OrgPerMinute: 1000, IPPerMinute: 2}
	for _, tc := range []struct {
		name   string
		prefix int
		ips    []string
		want   []int
	}{
		{"one /64", 0, []string{"[2001:db8:1:2::a]", "[2001:db8:1:2::b]", "[2001:db8:1:2:ffff::1]", "[2001:db8:1:3::a]", "[2001:db8:1:2::c]"},
			[]int{200, 200, 429, 200, 429}},
		{"each address", 128, []string{"[2001:db8:1:2::a]", "[2001:db8:1:2::b]", "[2001:db8:1:2::c]", "[2001:db8:1:2::a]", "[2001:db8:1:2::a]"},
			[]int{200, 200, 200, 200, 429}},
		{"a /48", 48, []string{"[2001:db8:1:2::a]", "[2001:db8:1:3::a]", "[2001:db8:1:4::a]"}, []int{200, 200, 429}},
		{"IPv4 by address", 0, []string{"192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.1", "192.0.2.1"}, []int{200, 200, 200, 200, 429}},
	} {
		e := sqliteEnv(t, opts{limits: limits, ipv6Prefix: tc.prefix})
		for i, ip := range tc.ips {
			w := e.do(req{path: base + "/accounts", key: e.all, ip: ip})
			if w.Code != tc.want[i] {
				t.Errorf("%s: request %d from %s: %d, want %d", tc.name, i+1, ip, w.Code, tc.want[i])
			}
		}
	}
}

// TestPlainDigitsAnswer (issue 30, finding 10): limit and offset in any
// spelling but plain digits get the usual 400 listing each problem.
func TestPlainDigitsAnswer(t *testing.T) {
	e := sqliteEnv(t, opts{})
	for q, want := range map[string][]string{
		"limit=%2B5": {"limit must be an integer between 1 and 100, in plain digits (no sign, no leading zero)"},
		"offset=010": {"offset must be an integer between 0 and 10000, in plain digits (no sign, no leading zero)"},
		"offset=-0":  {"offset must be an integer between 0 and 10000, in plain digits (no sign, no leading zero)"},
		"limit=%2B5&offset=-0": {"limit must be an integer between 1 and 100, in plain digits (no sign, no leading zero)",
			"offset must be an integer between 0 and 10000, in plain digits (no sign, no leading zero)"},
	} {
		w := e.get(base+"/accounts?"+q, e.all)
		if w.Code != http.StatusBadRequest {
			t.Errorf("%s: %d %s", q, w.Code, w.Body)
			continue
		}
		if got := decodeError(t, w).Message; !reflect.DeepEqual(got, toAny(want)) {
			t.Errorf("%s: message %v, want %v", q, got, want)
		}
	}
	if w := e.get(base+"/accounts?limit=5&offset=0", e.all); w.Code != http.StatusOK {
		t.Errorf("limit=5&offset=0: %d %s", w.Code, w.Body)
	}
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
