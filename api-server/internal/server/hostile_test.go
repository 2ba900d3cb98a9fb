package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/server"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
)

// sqliteEnv is a server on SQLite with the in-process limiter.
func sqliteEnv(t *testing.T, o opts) *env {
	t.Helper()
	b := dbtest.SQLite(t)
	if err := testenv.Migrate(t.Context(), b.DB); err != nil {
		t.Fatal(err)
	}
	return newEnv(t, b, o)
}

// TestKeyInURL: a key anywhere in the URL, however it is encoded or
// separated, is refused with 400 before any key lookup, and never logged
// (issue #22 points 5 and 10).
func TestKeyInURL(t *testing.T) {
	var lookups atomic.Int64
	e := sqliteEnv(t, opts{lookups: &lookups})
	key := e.admin
	body := strings.TrimPrefix(key, "svc_live_")
	double := strings.ReplaceAll(url.QueryEscape(url.QueryEscape(key)), "_", "%255F")
	for _, p := range []string{
		base + "/accounts?limit=5%note=svc%5Flive_" + body,
		base + "/accounts?limit=5&note=" + double,
		base + "/accounts?limit=5;note=" + key,
		base + "/accounts?limit=5;note=svc%5Flive_" + body,
		base + "/accounts?note=" + body,
		base + "/accounts?" + body,
		base + "/accounts/" + key,
		"/nope/" + body,
		"/healthz?x=" + double,
	} {
		w := e.get(p, e.all)
		if w.Code != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", p, w.Code)
			continue
		}
		if m := decodeError(t, w).Message; !strings.Contains(strings.Join(toStrings(m), " "), "credentials must not be sent") {
			t.Errorf("%s: message %v", p, m)
		}
	}
	if n := lookups.Load(); n != 0 {
		t.Errorf("%d key lookups for URLs holding a key, want 0", n)
	}
	logs := e.logs.String()
	if strings.Contains(logs, body) || strings.Contains(logs, body[:20]) {
		t.Errorf("the log holds the key:\n%s", logs)
	}
	if !strings.Contains(logs, `"status":400`) {
		t.Errorf("refusals not logged:\n%s", logs)
	}
}

func toStrings(m any) []string {
	switch v := m.(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, len(v))
		for i, x := range v {
			out[i], _ = x.(string)
		}
		return out
	}
	return nil
}

// TestHostileHeaders: two Authorization headers, any header naming an
// organization or tenant → 400; an X-Request-Id that is long, not plain or
// holds a key is replaced, never echoed or logged (issue #22 points 5, 7).
func TestHostileHeaders(t *testing.T) {
	var lookups atomic.Int64
	e := sqliteEnv(t, opts{lookups: &lookups})
	for _, h := range []string{"X-Tenant-Id", "Organization-Id", "X-Organization-Id", "X-Org-Id", "X-Org", "Tenant", "X-Organisation"} {
		w := e.do(req{path: base + "/accounts", key: e.all, header: map[string]string{h: "org_b"}})
		if w.Code != http.StatusBadRequest || !strings.Contains(strings.Join(toStrings(decodeError(t, w).Message), " "), "organization is taken from the API key") {
			t.Errorf("%s: %d %s", h, w.Code, w.Body)
		}
	}
	hr, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/accounts", nil)
	hr.RemoteAddr = "192.0.2.10:1"
	hr.RequestURI = base + "/accounts"
	hr.Header["Authorization"] = []string{"Bearer " + e.all, "Bearer " + e.b}
	w := recorder()
	e.h.ServeHTTP(w, hr)
	if w.Code != http.StatusBadRequest {
		t.Errorf("two Authorization headers: %d %s", w.Code, w.Body)
	}
	if n := lookups.Load(); n != 0 {
		t.Errorf("%d key lookups for refused headers", n)
	}
	// X-Request-Id.
	for id, kept := range map[string]bool{
		"req-123.abc_DEF":                        true,
		e.admin:                                  false,
		strings.TrimPrefix(e.admin, "svc_live_"): false,
		strings.Repeat("a", 65):                  false,
		"has space":                              false,
		"a\x00b":                                 false,
	} {
		w := e.do(req{path: base + "/accounts", key: e.all, header: map[string]string{"X-Request-Id": id}})
		got := w.Header().Get("X-Request-Id")
		if (got == id) != kept || got == "" {
			t.Errorf("X-Request-Id %q: answered %q (kept %v)", id, got, kept)
		}
	}
	if logs := e.logs.String(); strings.Contains(logs, strings.TrimPrefix(e.admin, "svc_live_")) {
		t.Errorf("the log holds a key from X-Request-Id:\n%s", logs)
	}
}

// TestPathVariants: percent-encoded variants of a path never reach an
// endpoint (issue #22 point 9).
func TestPathVariants(t *testing.T) {
	e := sqliteEnv(t, opts{})
	for _, p := range []string{base + "/%61ccounts", base + "%2Faccounts", "/api/v1/developer/accounts%2F", "/%68ealthz", base + "/openapi%2Ejson"} {
		if w := e.get(p, e.all); w.Code != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", p, w.Code)
		}
	}
}

// TestRefusedBeforeAuthCount: requests refused before authentication (400,
// 404, 405) take from the per-IP bucket (issue #22 point 6).
func TestRefusedBeforeAuthCount(t *testing.T) {
	e := sqliteEnv(t, opts{limits: server.Limits{KeyPerMinute: 100, OrgPerMinute: 100, IPPerMinute: 3}})
	const ip = "198.51.100.40"
	for _, r := range []req{
		{path: base + "/accounts?api_key=x", ip: ip},
		{path: base + "/nope", ip: ip},
		{method: http.MethodPost, path: base + "/accounts", ip: ip},
	} {
		if w := e.do(r); w.Code < 400 || w.Code == http.StatusTooManyRequests {
			t.Fatalf("%s %s: %d", r.method, r.path, w.Code)
		}
	}
	if w := e.do(req{path: base + "/accounts", key: e.all, ip: ip}); w.Code != http.StatusTooManyRequests {
		t.Errorf("after 3 refused requests at 3/min: %d, want 429", w.Code)
	}
	if w := e.do(req{path: base + "/accounts", key: e.all, ip: "198.51.100.41"}); w.Code != http.StatusOK {
		t.Errorf("another IP: %d", w.Code)
	}
}

// TestReadyzCached: a flood of /readyz costs the dependencies one check a
// second, and the check takes a request from a limiter bucket (issue #22
// point 6). The second is the server's clock's (issue 32: no sleep).
func TestReadyzCached(t *testing.T) {
	var pings atomic.Int64
	lim := &countingLimiter{Limiter: ratelimit.NewMemory(nil)}
	clk := &stoppedClock{t: time.Now()}
	e := sqliteEnv(t, opts{limiter: lim, onPing: func() { pings.Add(1) }, now: clk.Now})
	var wg sync.WaitGroup
	for range 200 {
		wg.Go(func() {
			if w := e.get("/readyz", ""); w.Code != http.StatusOK {
				t.Errorf("readyz %d", w.Code)
			}
		})
	}
	wg.Wait()
	if p, l := pings.Load(), lim.calls.Load(); p != 1 || l != 1 {
		t.Errorf("200 probes at one instant made %d store pings and %d limiter calls, want 1 each", p, l)
	}
	before := pings.Load()
	clk.Advance(900 * time.Millisecond)
	e.get("/readyz", "")
	if p := pings.Load(); p != before {
		t.Errorf("a probe 0.9 s later checked again (%d pings, %d before)", p, before)
	}
	clk.Advance(200 * time.Millisecond)
	e.get("/readyz", "")
	if p := pings.Load(); p != before+1 {
		t.Errorf("a probe 1.1 s later did not check again (%d pings, %d before)", p, before)
	}
}

// stoppedClock is a clock that moves only when told.
type stoppedClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stoppedClock) Now() time.Time          { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *stoppedClock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

type countingLimiter struct {
	ratelimit.Limiter
	calls atomic.Int64
}

func (c *countingLimiter) Allow(ctx context.Context, checks []ratelimit.Check, results []ratelimit.Result) error {
	c.calls.Add(1)
	return c.Limiter.Allow(ctx, checks, results)
}

// TestYearZero: a year-0000 date is a 400, never a database error (issue
// #22 point 10).
func TestYearZero(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		e := newEnv(t, b, opts{})
		for _, q := range []string{"?to=0000-10-01", "?to=0000-01-15", "?from=0000-12-20&to=0001-01-10"} {
			if w := e.get(base+"/insights"+q, e.all); w.Code != http.StatusBadRequest {
				t.Errorf("%s: %d %s", q, w.Code, w.Body)
			}
		}
		if w := e.get(base+"/insights?to=0001-01-15", e.all); w.Code != http.StatusOK {
			t.Errorf("to=0001-01-15: %d %s", w.Code, w.Body)
		}
	})
}

// TestHTTPSemantics: HEAD works wherever GET does; headers over the limit
// get the JSON error body; refusals close the connection; X-Real-IP is not
// believed even from a trusted proxy (issue #19 point 5, #22 points 3, 9).
func TestHTTPSemantics(t *testing.T) {
	e := sqliteEnv(t, opts{limits: server.Limits{KeyPerMinute: 100, OrgPerMinute: 100, IPPerMinute: 1}, trusted: []string{"10.0.0.0/8"}})
	for _, p := range []string{base + "/accounts", "/healthz", "/readyz", base + "/openapi.json"} {
		w := e.do(req{method: http.MethodHead, path: p, key: e.all, ip: "10.9.9.9", header: map[string]string{"X-Forwarded-For": "203.0.113." + string(rune('1'+len(p)%8))}})
		if w.Code != http.StatusOK {
			t.Errorf("HEAD %s: %d %s", p, w.Code, w.Body)
		}
	}
	w := e.do(req{path: base + "/accounts", key: e.all, header: map[string]string{"X-Big": strings.Repeat("x", 20<<10)}})
	if w.Code != http.StatusRequestHeaderFieldsTooLarge || !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		t.Errorf("20 KiB header: %d %q", w.Code, w.Header().Get("Content-Type"))
	}
	decodeError(t, w)
	if w := e.get(base+"/accounts", ""); w.Code != http.StatusUnauthorized || w.Header().Get("Connection") != "close" {
		t.Errorf("401: %d Connection %q", w.Code, w.Header().Get("Connection"))
	}
	// Behind a trusted proxy, only X-Forwarded-For names the client.
	for i := range 2 {
		w := e.do(req{path: base + "/accounts", key: e.all, ip: "10.1.1.1", header: map[string]string{"X-Real-IP": "203.0.113.9" + string(rune('0'+i))}})
		if want := []int{200, 429}[i]; w.Code != want {
			t.Errorf("request %d with a new X-Real-IP: %d, want %d (X-Real-IP is not believed)", i, w.Code, want)
		}
	}
}

// TestOutageLogs: while the limit store fails, the server writes at most a
// line a second for it, with a count, and no line per refused request; a
// 503 carries Retry-After; a client that leaves during the limiter call is
// not logged as a store failure (issue #22 points 9, 11; #19 point 5).
func TestOutageLogs(t *testing.T) {
	lim, err := ratelimit.NewRedis("redis://127.0.0.1:1/0", testenv.Namespace(), 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer lim.Close()
	e := sqliteEnv(t, opts{limiter: lim})
	for range 100 {
		w := e.get(base+"/accounts", e.all)
		if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
			t.Fatalf("%d Retry-After %q", w.Code, w.Header().Get("Retry-After"))
		}
	}
	logs := e.logs.String()
	if n := strings.Count(logs, "\n"); n > 3 || !strings.Contains(logs, `"count":`) {
		t.Errorf("100 refusals wrote %d lines, want at most a line a second with a count:\n%s", n, logs)
	}
	// A client that is gone by the time the limiter answers.
	proxyTarget := strings.TrimPrefix(testenv.RedisURL(t), "redis://")
	proxyTarget, _, _ = strings.Cut(proxyTarget, "/")
	proxy := testenv.NewProxy(t, proxyTarget)
	proxy.Set("hang")
	hung, err := ratelimit.NewRedis("redis://"+proxy.Addr()+"/0", testenv.Namespace(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer hung.Close()
	e2 := sqliteEnv(t, opts{limiter: hung})
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if w := e2.do(req{ctx: ctx, path: base + "/accounts", key: e2.all}); w.Code != 499 {
		t.Errorf("client gone during the limiter call: %d, want 499", w.Code)
	}
	if logs := e2.logs.String(); strings.Contains(logs, "unavailable") || strings.Contains(logs, `"level":"ERROR"`) || !strings.Contains(logs, `"status":499`) {
		t.Errorf("a client that left is logged as a failure:\n%s", logs)
	}
}

func recorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

// flakyLimiter fails while fail is set.
type flakyLimiter struct {
	ratelimit.Limiter
	fail  atomic.Bool
	calls atomic.Int64
}

func (f *flakyLimiter) Allow(ctx context.Context, checks []ratelimit.Check, results []ratelimit.Result) error {
	f.calls.Add(1)
	if f.fail.Load() {
		return ratelimit.ErrUnavailable
	}
	return f.Limiter.Allow(ctx, checks, results)
}

// TestLimiterBreaker: once the limit store has failed a few times in a row,
// requests get 503 at once without asking it (nor looking the key up),
// except a probe now and then; when it answers again, service returns
// within a probe interval (issue #22 point 1).
func TestLimiterBreaker(t *testing.T) {
	var lookups atomic.Int64
	lim := &flakyLimiter{Limiter: ratelimit.NewMemory(nil)}
	e := sqliteEnv(t, opts{limiter: lim, lookups: &lookups})
	if w := e.get(base+"/accounts", e.all); w.Code != http.StatusOK {
		t.Fatalf("up: %d", w.Code)
	}
	lim.fail.Store(true)
	before, lookupsBefore := lim.calls.Load(), lookups.Load()
	for range 50 {
		if w := e.get(base+"/accounts", e.all); w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" {
			t.Fatalf("store failing: %d", w.Code)
		}
	}
	if n := lim.calls.Load() - before; n > 6 {
		t.Errorf("50 requests asked a failing store %d times, want the breaker to stop after 3 (and a probe)", n)
	}
	if n := lookups.Load() - lookupsBefore; n > 6 {
		t.Errorf("50 requests made %d key lookups while the store was failing", n)
	}
	lim.fail.Store(false)
	deadline := time.Now().Add(time.Second)
	for e.get(base+"/accounts", e.all).Code != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatal("no 200 within 1 s of the store's return")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestDatabaseBreaker: once the database has failed a few times in a row,
// requests get 503 at once without a lookup, except a probe now and then;
// a key that is merely unknown does not count as a failure.
func TestDatabaseBreaker(t *testing.T) {
	var lookups atomic.Int64
	b, proxy := proxiedPostgres(t)
	e := newEnv(t, b, opts{lookups: &lookups})
	for range 10 { // unknown keys are answers, not failures
		if w := e.get(base+"/accounts", "svc_live_"+strings.Repeat("A", 43)); w.Code != http.StatusUnauthorized {
			t.Fatalf("unknown key: %d", w.Code)
		}
	}
	if w := e.get(base+"/accounts", e.all); w.Code != http.StatusOK {
		t.Fatalf("after unknown keys: %d", w.Code)
	}
	proxy.Set("down") // a real outage: connections refused
	before := lookups.Load()
	for range 50 {
		if w := e.get(base+"/accounts", e.all); w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" {
			t.Fatalf("database closed: %d", w.Code)
		}
	}
	if n := lookups.Load() - before; n > 6 {
		t.Errorf("50 requests made %d key lookups on a failing database, want the breaker to stop after 3 (and a probe)", n)
	}
}
