package server_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/server"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/keys"
)

// benchInsights are 101 realistic insight rows (a page of 100 and one more).
var benchInsights = func() []store.InsightRow {
	rows := make([]store.InsightRow, 101)
	for i := range rows {
		m := []string{"unavailable", "reported_purchase_value"}[i%2]
		rows[i] = store.InsightRow{ID: fmt.Sprintf("ins_bench_%03d", i), PlatformAdAccountID: "act_123456",
			AttributionWindow: "7d_click_1d_view", CampaignID: sql.NullString{String: "cmp_a1", Valid: i%3 > 0},
			Date: "2026-11-20", SyncedAt: store.NullTime{Time: time.Date(2026, 11, 20, 6, 0, 0, 0, time.UTC), Valid: true},
			Currency: "EUR", Timezone: "Europe/Berlin", PurchaseMeasurement: m, Spend: "1234.50", CTR: "1.25", CPC: "0.40",
			CPM: "6.10", Impressions: 123456, Reach: 98765, Clicks: 4321, Purchases: sql.NullFloat64{Float64: 12, Valid: true},
			PurchaseValue: sql.NullFloat64{Float64: 345.5, Valid: true}, ROAS: sql.NullFloat64{Float64: 2.75, Valid: true}}
	}
	return rows
}()

type insightMemStore struct{ memStore }

func (insightMemStore) InsightsPage(context.Context, string, store.ListParams, store.Prelude) (store.Meta, *store.InsightPage, error) {
	return store.Meta{AccountFound: true, DataAsOf: time.Unix(1_700_000_000, 0)}, store.PageOf(benchInsights), nil
}

// BenchmarkInsightsEncode measures the handler's own cost for one /insights
// page of 100 rows (the rows in memory: no decode), keys and limits from
// memory: what the generated encoder replaced (the copy into wire structs
// and the hand-written encoder).
func BenchmarkInsightsEncode(b *testing.B) {
	principal := &keys.Principal{KeyID: "key_1", OrganizationID: "org_a", IssuerRole: keys.RoleOwner,
		Scopes: apikey.NewScopes(apikey.ScopeInsightsRead), ExpiresAt: time.Now().Add(time.Hour)}
	h, err := server.New(server.Config{Keys: fixedKeys{principal}, Store: insightMemStore{}, Limiter: ratelimit.NewMemory(nil),
		Limits: server.Limits{KeyPerMinute: 1 << 30, OrgPerMinute: 1 << 30, IPPerMinute: 1 << 30}, MaxInFlight: 8})
	if err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, server.BasePath+"/insights?limit=100", nil)
	req.Header.Set("Authorization", "Bearer svc_live_bench")
	w := httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		w.Body.Reset()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}
