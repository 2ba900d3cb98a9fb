package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The baseline is the least code that answers the same list requests from
// the same tables: net/http, a pgx pool, one query per request, the natural
// LIMIT/OFFSET over the same index, encoding/json. No authentication, no
// limits, no validation beyond parsing integers; the organization is fixed
// on the command line.

const baselineInsights = `SELECT id, platform_ad_account_id, attribution_window, campaign_id,
	to_char(date, 'YYYY-MM-DD'), synced_at, currency, timezone, purchase_measurement,
	spend::text, ctr::text, cpc::text, cpm::text, impressions, reach, clicks, purchases, purchase_value, roas
	FROM insights_daily WHERE organization_id = $1 AND date BETWEEN $2::date AND $3::date
	ORDER BY date DESC, id LIMIT $4 OFFSET $5`

const baselineAccounts = `SELECT id, account_name, currency, timezone, is_active, last_sync_at
	FROM ad_accounts WHERE organization_id = $1 ORDER BY id LIMIT $2 OFFSET $3`

const baselineCampaigns = `SELECT id, platform_ad_account_id, name, objective, status, effective_status,
	daily_budget::text, lifetime_budget::text, synced_at, currency, timezone
	FROM campaigns WHERE organization_id = $1 ORDER BY id LIMIT $2 OFFSET $3`

// baselineSummary is GET /insights/summary as plain SQL: the aggregate of
// svc-api's statement (api-server/internal/store/queries/postgres/summary.sql),
// its ratios computed in SQL too, rounded with round(…, 4) of a quotient
// taken at 30 decimal places.
const baselineSummary = `WITH g AS (
	SELECT currency,
		CASE WHEN $4::text IN ('account', 'campaign') THEN account_id END AS account_id,
		CASE WHEN $4::text = 'campaign' THEN campaign_id END AS campaign_id,
		CASE $4::text WHEN 'day' THEN date WHEN 'week' THEN date_trunc('week', date::timestamp)::date
			WHEN 'month' THEN date_trunc('month', date::timestamp)::date END AS period_start,
		count(*) AS n_rows, count(DISTINCT date) AS n_days, sum(spend) AS spend,
		sum(impressions) AS impressions, sum(clicks) AS clicks,
		count(*) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchases IS NOT NULL) AS purchase_rows,
		sum(purchases::numeric) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchases IS NOT NULL) AS purchases,
		count(*) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchase_value IS NOT NULL) AS purchase_value_rows,
		sum(purchase_value::numeric) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchase_value IS NOT NULL) AS purchase_value,
		sum(spend) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchase_value IS NOT NULL) AS value_spend
	FROM insights_daily
	WHERE organization_id = $1 AND date >= $2::date AND date <= $3::date
		AND (campaign_id IS NOT NULL) = ($5::text = 'campaign')
	GROUP BY 1, 2, 3, 4)
SELECT currency, account_id, campaign_id, to_char(period_start, 'YYYY-MM-DD'), n_rows, n_days, spend::text,
	impressions::bigint, clicks::bigint,
	round(clicks::numeric(40, 30) * 100 / NULLIF(impressions, 0), 4)::text,
	round(spend::numeric(60, 30) / NULLIF(clicks, 0), 4)::text,
	round(spend::numeric(60, 30) * 1000 / NULLIF(impressions, 0), 4)::text,
	purchase_rows, purchases::text, purchase_value_rows, purchase_value::text,
	round(purchase_value::numeric(60, 30) / NULLIF(value_spend, 0), 4)::text
FROM g
ORDER BY currency COLLATE "C", account_id COLLATE "C", campaign_id COLLATE "C", g.period_start
LIMIT $6 OFFSET $7`

type bSummary struct {
	Level             string  `json:"level"`
	Currency          string  `json:"currency"`
	AccountID         *string `json:"accountId"`
	CampaignID        *string `json:"campaignId"`
	PeriodStart       *string `json:"periodStart"`
	Rows              int64   `json:"rows"`
	Days              int64   `json:"days"`
	Spend             string  `json:"spend"`
	Impressions       int64   `json:"impressions"`
	Clicks            int64   `json:"clicks"`
	CTR               *string `json:"ctr"`
	CPC               *string `json:"cpc"`
	CPM               *string `json:"cpm"`
	PurchaseRows      int64   `json:"purchaseRows"`
	Purchases         *string `json:"purchases"`
	PurchaseValueRows int64   `json:"purchaseValueRows"`
	PurchaseValue     *string `json:"purchaseValue"`
	ROAS              *string `json:"roas"`
}

type bRef struct {
	Currency string `json:"currency"`
	Timezone string `json:"timezone"`
}

type bInsight struct {
	ID                  string     `json:"id"`
	PlatformAdAccountID string     `json:"platformAdAccountId"`
	AttributionWindow   string     `json:"attributionWindow"`
	CampaignID          *string    `json:"campaignId"`
	Date                string     `json:"date"`
	SyncedAt            *time.Time `json:"syncedAt"`
	Account             bRef       `json:"account"`
	PurchaseMeasurement string     `json:"purchaseMeasurement"`
	Spend               string     `json:"spend"`
	CTR                 string     `json:"ctr"`
	CPC                 string     `json:"cpc"`
	CPM                 string     `json:"cpm"`
	Impressions         int64      `json:"impressions"`
	Reach               int64      `json:"reach"`
	Clicks              int64      `json:"clicks"`
	Purchases           *float64   `json:"purchases"`
	PurchaseValue       *float64   `json:"purchaseValue"`
	ROAS                *float64   `json:"roas"`
}

type bAccount struct {
	ID          string     `json:"id"`
	AccountName string     `json:"accountName"`
	Currency    string     `json:"currency"`
	Timezone    string     `json:"timezone"`
	IsActive    bool       `json:"isActive"`
	LastSyncAt  *time.Time `json:"lastSyncAt"`
}

type bCampaign struct {
	ID                  string     `json:"id"`
	PlatformAdAccountID string     `json:"platformAdAccountId"`
	Name                string     `json:"name"`
	Objective           string     `json:"objective"`
	Status              string     `json:"status"`
	EffectiveStatus     *string    `json:"effectiveStatus"`
	DailyBudget         *string    `json:"dailyBudget"`
	LifetimeBudget      *string    `json:"lifetimeBudget"`
	SyncedAt            *time.Time `json:"syncedAt"`
	Account             bRef       `json:"account"`
}

type bMeta struct {
	Source          string `json:"source"`
	LiveMetaRequest bool   `json:"liveMetaRequest"`
	Limit           int    `json:"limit"`
	Offset          int    `json:"offset"`
	NextOffset      *int   `json:"nextOffset"`
	Returned        int    `json:"returned"`
	GeneratedAt     string `json:"generatedAt"`
}

func runBaseline(args []string) error {
	fs := flag.NewFlagSet("baseline", flag.ContinueOnError)
	dbURL := fs.String("database-url", "", "PostgreSQL URL")
	listen := fs.String("listen", "127.0.0.1:0", "listen address")
	org := fs.String("org", "org_01", "organization served")
	conns := fs.Int("conns", 20, "pool size (svc-api's default)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := pgxpool.ParseConfig(*dbURL)
	if err != nil {
		return err
	}
	cfg.MaxConns = int32(*conns)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()

	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	mux.Handle("GET /api/v1/developer/insights", listHandler(pool, baselineInsights,
		func(r *http.Request) []any {
			today := time.Now().UTC()
			from, to := r.URL.Query().Get("from"), r.URL.Query().Get("to")
			if to == "" {
				to = today.Format(time.DateOnly)
			}
			if from == "" {
				from = today.AddDate(0, 0, -29).Format(time.DateOnly)
			}
			return []any{*org, from, to}
		},
		func(rows pgx.Rows, x *bInsight) error {
			err := rows.Scan(&x.ID, &x.PlatformAdAccountID, &x.AttributionWindow, &x.CampaignID, &x.Date, &x.SyncedAt,
				&x.Account.Currency, &x.Account.Timezone, &x.PurchaseMeasurement, &x.Spend, &x.CTR, &x.CPC, &x.CPM,
				&x.Impressions, &x.Reach, &x.Clicks, &x.Purchases, &x.PurchaseValue, &x.ROAS)
			x.Date += "T00:00:00Z"
			return err
		}))
	mux.Handle("GET /api/v1/developer/insights/summary", listHandler(pool, baselineSummary,
		func(r *http.Request) []any {
			q := r.URL.Query()
			return []any{*org, q.Get("from"), q.Get("to"), q.Get("groupBy"), q.Get("level")}
		},
		func(rows pgx.Rows, x *bSummary) error {
			x.Level = "campaign"
			return rows.Scan(&x.Currency, &x.AccountID, &x.CampaignID, &x.PeriodStart, &x.Rows, &x.Days, &x.Spend,
				&x.Impressions, &x.Clicks, &x.CTR, &x.CPC, &x.CPM, &x.PurchaseRows, &x.Purchases, &x.PurchaseValueRows,
				&x.PurchaseValue, &x.ROAS)
		}))
	orgOnly := func(*http.Request) []any { return []any{*org} }
	mux.Handle("GET /api/v1/developer/accounts", listHandler(pool, baselineAccounts, orgOnly,
		func(rows pgx.Rows, x *bAccount) error {
			return rows.Scan(&x.ID, &x.AccountName, &x.Currency, &x.Timezone, &x.IsActive, &x.LastSyncAt)
		}))
	mux.Handle("GET /api/v1/developer/campaigns", listHandler(pool, baselineCampaigns, orgOnly,
		func(rows pgx.Rows, x *bCampaign) error {
			return rows.Scan(&x.ID, &x.PlatformAdAccountID, &x.Name, &x.Objective, &x.Status, &x.EffectiveStatus,
				&x.DailyBudget, &x.LifetimeBudget, &x.SyncedAt, &x.Account.Currency, &x.Account.Timezone)
		}))
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	fmt.Println(ln.Addr().String())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}

// listHandler answers one list endpoint: query with args(r), then limit+1
// and offset, each row read by scan, and the envelope of the first limit rows.
func listHandler[T any](pool *pgxpool.Pool, query string, args func(*http.Request) []any, scan func(pgx.Rows, *T) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		limit, offset := 50, 0
		if v, err := strconv.Atoi(r.URL.Query().Get("limit")); err == nil {
			limit = v
		}
		if v, err := strconv.Atoi(r.URL.Query().Get("offset")); err == nil {
			offset = v
		}
		rows, err := pool.Query(r.Context(), query, append(args(r), limit+1, offset)...)
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		out := make([]T, 0, limit+1)
		for rows.Next() {
			var x T
			if err := scan(rows, &x); err != nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
			out = append(out, x)
		}
		if err := rows.Err(); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		n := len(out)
		var next *int
		if n > limit {
			v := offset + limit
			next = &v
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_ = json.NewEncoder(w).Encode(map[string]any{"data": out[:min(n, limit)], "meta": bMeta{Source: "stored_snapshot",
			Limit: limit, Offset: offset, NextOffset: next, Returned: min(n, limit),
			GeneratedAt: time.Now().UTC().Format(time.RFC3339)}})
	})
}
