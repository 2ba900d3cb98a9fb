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
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
)

// BenchmarkPages measures one list request through the handler over the
// real PostgreSQL store (read, decode, encode), keys and limits answering
// from memory: /insights at offsets 0 and 200 (the seek), 100 rows, and
// /accounts and /campaigns.
//
//	go test -run '^$' -bench Pages -benchmem ./internal/server/
func BenchmarkPages(b *testing.B) {
	h := benchHandler(b)
	for _, path := range []string{"/insights?limit=100", "/insights?limit=100&offset=200", "/accounts?limit=50", "/campaigns?limit=50"} {
		b.Run(path, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, server.BasePath+path, nil)
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

// benchHandler is the API over a PostgreSQL store seeded with 600 insight
// rows of org_a over 12 days, every key answering as org_a's owner.
func benchHandler(b *testing.B) http.Handler {
	be := dbtest.Postgres(b)
	ctx := b.Context()
	today := time.Now().UTC()
	testenv.Seed(b, be.DB, today)
	for i := range 600 {
		m := []string{"unavailable", "reported_purchase_value"}[i%2]
		if _, err := be.DB.ExecContext(ctx, `INSERT INTO insights_daily (id, organization_id, account_id,
			platform_ad_account_id, currency, timezone, date, attribution_window, purchase_measurement,
			spend, ctr, cpc, cpm, impressions, reach, clicks, purchases, purchase_value, roas, synced_at, updated_at)
			VALUES (?, 'org_a', 'acc_a1', 'act_123456', 'EUR', 'Europe/Berlin', ?, '7d_click_1d_view', ?,
			'1234.50', '1.25', '0.40', '6.10', 123456, 98765, 4321, 12, 345.5, 2.75, ?, ?)`,
			fmt.Sprintf("ins_bench_%03d", (i*7919)%600), today.AddDate(0, 0, -(i%12)).Format(time.DateOnly), m, today, today); err != nil {
			b.Fatal(err)
		}
	}
	// A writer other than the import computes the per-day counts again.
	if _, err := be.DB.ExecContext(ctx, `SELECT insights_daily_aggregates_refresh()`); err != nil {
		b.Fatal(err)
	}
	st, err := store.New(ctx, be.Handle)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(st.Close)
	principal := &keys.Principal{KeyID: "key_1", OrganizationID: "org_a", IssuerRole: keys.RoleOwner,
		Scopes: apikey.NewScopes(apikey.ScopeAccountsRead, apikey.ScopeCampaignsRead, apikey.ScopeInsightsRead), ExpiresAt: time.Now().Add(time.Hour)}
	h, err := server.New(server.Config{Keys: fixedKeys{principal}, Store: st, Limiter: ratelimit.NewMemory(nil),
		Limits: server.Limits{KeyPerMinute: 1 << 30, OrgPerMinute: 1 << 30, IPPerMinute: 1 << 30}, MaxInFlight: 8})
	if err != nil {
		b.Fatal(err)
	}
	return h
}

// fixedKeys answers every lookup with one principal.
type fixedKeys struct{ p *keys.Principal }

func (k fixedKeys) Lookup(context.Context, string) (*keys.Principal, error) { return k.p, nil }
