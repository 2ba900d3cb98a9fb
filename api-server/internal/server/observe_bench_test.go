package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/server"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/telemetry"
	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/keys"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// BenchmarkRequestPath measures the pipeline's own cost for one /accounts
// request (50 rows) with the dependencies answering from memory, so that
// the telemetry's share is not hidden by database time: telemetry off
// (nothing installed), metrics on, tracing on (every request sampled,
// spans batched to an exporter that drops them), and both. `make bench`
// measures the same over real PostgreSQL and Redis (e2e/bench tracing).
//
//	go test -run '^$' -bench RequestPath -benchmem ./internal/server/
func BenchmarkRequestPath(b *testing.B) {
	for _, mode := range []string{"off", "metrics", "tracing", "metrics+tracing"} {
		b.Run(mode, func(b *testing.B) {
			cfg := server.Config{Keys: memKeys{}, Store: memStore{}, Limiter: ratelimit.NewMemory(nil),
				Limits: server.Limits{KeyPerMinute: 1 << 30, OrgPerMinute: 1 << 30, IPPerMinute: 1 << 30}, MaxInFlight: 8}
			if mode == "metrics" || mode == "metrics+tracing" {
				cfg.Metrics = telemetry.NewMetrics()
			}
			if mode == "tracing" || mode == "metrics+tracing" {
				tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(dropExporter{}))
				b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
				cfg.Tracer = tp.Tracer("bench")
			}
			h, err := server.New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			req := httptest.NewRequest(http.MethodGet, server.BasePath+"/accounts?limit=50", nil)
			req.Header.Set("Authorization", "Bearer svc_live_bench")
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
		})
	}
}

type memKeys struct{}

var benchPrincipal = &keys.Principal{KeyID: "key_1", OrganizationID: "org_a", IssuerRole: keys.RoleOwner,
	Scopes: apikey.NewScopes(apikey.ScopeAccountsRead), ExpiresAt: time.Now().Add(time.Hour)}

func (memKeys) Lookup(context.Context, string) (*keys.Principal, error) { return benchPrincipal, nil }

// memStore answers from memory; a read it lacks panics (nil Store).
type memStore struct{ server.Store }

var benchAccounts = func() []store.AccountRow {
	rows := make([]store.AccountRow, 51)
	for i := range rows {
		rows[i] = store.AccountRow{ID: fmt.Sprintf("acc_%03d", i), AccountName: "Account", Currency: "EUR", Timezone: "Europe/Berlin", IsActive: true}
	}
	return rows
}()

func (memStore) AccountsPage(context.Context, string, store.ListParams, store.Prelude) (store.Meta, *store.AccountPage, error) {
	return store.Meta{AccountFound: true, DataAsOf: time.Unix(1_700_000_000, 0)}, store.PageOf(benchAccounts), nil
}

func (memStore) CampaignsPage(context.Context, string, store.ListParams, store.Prelude) (store.Meta, *store.CampaignPage, error) {
	return store.Meta{AccountFound: true}, nil, nil
}

func (memStore) InsightsPage(context.Context, string, store.ListParams, store.Prelude) (store.Meta, *store.InsightPage, error) {
	return store.Meta{AccountFound: true}, nil, nil
}

func (memStore) Ping(context.Context) error { return nil }

// dropExporter accepts spans and keeps none.
type dropExporter struct{}

func (dropExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (dropExporter) Shutdown(context.Context) error                             { return nil }
