package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/server"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/uptrace/bun"
)

// clock is a settable offset from the real time, shared by a test and the
// key service (expiry).
type clock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *clock) Now() time.Time          { c.mu.Lock(); defer c.mu.Unlock(); return time.Now().Add(c.off) }
func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.off += d; c.mu.Unlock() }

// syncBuffer collects log output from concurrent handlers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

type opts struct {
	limits  server.Limits
	limiter ratelimit.Limiter
	trusted []string
	// lookups, when set, counts the key lookups the server makes.
	lookups *atomic.Int64
	// onLookup, when set, is called before every key lookup.
	onLookup func()
	// keyLookups, when set, counts the sequential key lookups (Lookup)
	// and keeps the known-key path (Known), which lookups and onLookup turn off.
	keyLookups *atomic.Int64
	// maxInFlight is server.Config.MaxInFlight.
	maxInFlight int
	// onPage, when set, is called before every page read; onPing before
	// every store ping.
	onPage, onPing func()
	// dbDeadline is server.Config.DatabaseDeadline.
	dbDeadline time.Duration
	// wrapStore, when set, wraps the store the server reads.
	wrapStore func(server.Store) server.Store
	// ipv6Prefix is server.Config.IPv6Prefix.
	ipv6Prefix int
	// now, when set, is server.Config.Now (the server's clock; the key
	// service keeps the env's clock).
	now func() time.Time
}

// hookedStore calls hooks before the store's calls.
type hookedStore struct {
	server.Store
	onPage, onPing func()
}

func (h hookedStore) page() {
	if h.onPage != nil {
		h.onPage()
	}
}

func (h hookedStore) AccountsPage(ctx context.Context, orgID string, p store.ListParams, pre store.Prelude) (store.Meta, *store.AccountPage, error) {
	h.page()
	return h.Store.AccountsPage(ctx, orgID, p, pre)
}

func (h hookedStore) CampaignsPage(ctx context.Context, orgID string, p store.ListParams, pre store.Prelude) (store.Meta, *store.CampaignPage, error) {
	h.page()
	return h.Store.CampaignsPage(ctx, orgID, p, pre)
}

func (h hookedStore) InsightsPage(ctx context.Context, orgID string, p store.ListParams, pre store.Prelude) (store.Meta, *store.InsightPage, error) {
	h.page()
	return h.Store.InsightsPage(ctx, orgID, p, pre)
}

func (h hookedStore) InsightSummary(ctx context.Context, orgID string, p store.SummaryParams, pre store.Prelude) (store.Meta, []store.SummaryGroup, error) {
	h.page()
	return h.Store.InsightSummary(ctx, orgID, p, pre)
}

func (h hookedStore) Ping(ctx context.Context) error {
	if h.onPing != nil {
		h.onPing()
	}
	return h.Store.Ping(ctx)
}

// hookedLookup calls hook before every call to a KeyLookup.
type hookedLookup struct {
	server.KeyLookup
	hook func()
}

func (h hookedLookup) Lookup(ctx context.Context, presented string) (*keys.Principal, error) {
	h.hook()
	return h.KeyLookup.Lookup(ctx, presented)
}

// countedAuthenticator counts Lookup calls; Known stays the Authenticator's.
type countedAuthenticator struct {
	*keys.Authenticator
	n *atomic.Int64
}

func (c countedAuthenticator) Lookup(ctx context.Context, presented string) (*keys.Principal, error) {
	c.n.Add(1)
	return c.Authenticator.Lookup(ctx, presented)
}

type env struct {
	t       *testing.T
	name    string
	h       http.Handler
	db      *bun.DB
	keys    *keys.Manager
	clock   *clock
	logs    *syncBuffer
	all     string // org_a, every scope, issued by OwnerA
	allID   string
	admin   string // org_a, every scope, issued by AdminA
	accOnly string // org_a, accounts:read only
	b       string // org_b, every scope
}

var allScopes = apikey.NewScopes(apikey.ScopeAccountsRead, apikey.ScopeCampaignsRead, apikey.ScopeInsightsRead)

func newEnv(t *testing.T, b dbtest.Backend, o opts) *env {
	t.Helper()
	ctx := t.Context()
	testenv.Load(t, b.DB, time.Now().UTC())
	clk := &clock{}
	auth := keys.NewAuthenticator(b.Handle, keys.AuthenticatorOptions{Now: clk.Now})
	km := keys.NewManager(b.DB, keys.WithManagerClock(clk.Now))
	st, err := store.New(ctx, b.Handle)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	lim := o.limiter
	if lim == nil {
		if b.Name == "postgres" {
			r, err := ratelimit.NewRedis(testenv.RedisURL(t), testenv.Namespace(), 0)
			if err != nil {
				t.Fatal(err)
			}
			lim = r
		} else {
			lim = ratelimit.NewMemory(nil)
		}
		t.Cleanup(func() { lim.Close() })
	}
	logs := &syncBuffer{}
	var lookup server.KeyLookup = auth
	if o.lookups != nil {
		lookup = hookedLookup{lookup, func() { o.lookups.Add(1) }}
	}
	if o.onLookup != nil {
		lookup = hookedLookup{lookup, o.onLookup}
	}
	if o.keyLookups != nil {
		lookup = countedAuthenticator{auth, o.keyLookups}
	}
	var sst server.Store = st
	if o.onPage != nil || o.onPing != nil {
		sst = hookedStore{st, o.onPage, o.onPing}
	}
	if o.wrapStore != nil {
		sst = o.wrapStore(sst)
	}
	h, err := server.New(server.Config{
		Keys: lookup, Store: sst, Limiter: lim, Limits: o.limits, TrustedProxies: o.trusted,
		MaxInFlight: o.maxInFlight, DatabaseDeadline: o.dbDeadline, Now: o.now, IPv6Prefix: o.ipv6Prefix,
		OpenAPIJSON: []byte(`{"openapi":"3.1.0"}`),
		Logger:      slog.New(slog.NewJSONHandler(logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, name: b.Name, h: h, db: b.DB, keys: km, clock: clk, logs: logs}
	create := func(org, user string, scopes apikey.Scopes, days int) *keys.CreatedKey {
		k, err := km.Create(ctx, keys.CreateRequest{OrganizationID: org, UserID: user, Name: "test",
			Scopes: scopes, ExpiresInDays: days})
		if err != nil {
			t.Fatalf("create key: %v", err)
		}
		return k
	}
	k := create("org_a", testenv.OwnerA, allScopes, 30)
	e.all, e.allID = k.Key, k.ID
	e.admin = create("org_a", testenv.AdminA, allScopes, 30).Key
	e.accOnly = create("org_a", testenv.OwnerA, apikey.NewScopes(apikey.ScopeAccountsRead), 30).Key
	e.b = create("org_b", testenv.OwnerB, allScopes, 30).Key
	return e
}

type req struct {
	ctx    context.Context // the test's when nil
	method string
	path   string
	key    string
	ip     string
	header map[string]string
}

func (e *env) do(r req) *httptest.ResponseRecorder {
	e.t.Helper()
	if r.method == "" {
		r.method = http.MethodGet
	}
	if r.ctx == nil {
		r.ctx = e.t.Context()
	}
	hr := httptest.NewRequestWithContext(r.ctx, r.method, r.path, nil)
	hr.RemoteAddr = "192.0.2.10:40000"
	if r.ip != "" {
		hr.RemoteAddr = r.ip + ":40000"
	}
	if r.key != "" {
		hr.Header.Set("Authorization", "Bearer "+r.key)
	}
	for k, v := range r.header {
		hr.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, hr)
	return w
}

func (e *env) get(path, key string) *httptest.ResponseRecorder {
	e.t.Helper()
	return e.do(req{path: path, key: key})
}

type errBody struct {
	StatusCode int `json:"statusCode"`
	Message    any `json:"message"`
}

func decodeError(t *testing.T, w *httptest.ResponseRecorder) errBody {
	t.Helper()
	var b errBody
	dec := json.NewDecoder(w.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		t.Fatalf("error body %q: %v", w.Body.String(), err)
	}
	if b.StatusCode != w.Code {
		t.Errorf("statusCode %d, status %d", b.StatusCode, w.Code)
	}
	switch m := b.Message.(type) {
	case string:
		if m == "" {
			t.Error("empty message")
		}
	case []any:
		if len(m) == 0 {
			t.Error("empty message list")
		}
	default:
		t.Errorf("message is %T", b.Message)
	}
	return b
}

type page struct {
	Data []map[string]any `json:"data"`
	Meta map[string]any   `json:"meta"`
}

func decodePage(t *testing.T, w *httptest.ResponseRecorder) page {
	t.Helper()
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body.String())
	}
	var p page
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func ids(p page) []string {
	out := make([]string, len(p.Data))
	for i, d := range p.Data {
		out[i], _ = d["id"].(string)
	}
	return out
}

const base = server.BasePath
