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

	page := func(r *http.Request) (limit, offset int) {
		limit, offset = 50, 0
		if v, err := strconv.Atoi(r.URL.Query().Get("limit")); err == nil {
			limit = v
		}
		if v, err := strconv.Atoi(r.URL.Query().Get("offset")); err == nil {
			offset = v
		}
		return
	}
	write := func(w http.ResponseWriter, data any, n, limit, offset int) {
		more := n > limit
		var next *int
		if more {
			v := offset + limit
			next = &v
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_ = json.NewEncoder(w).Encode(map[string]any{"data": data, "meta": bMeta{Source: "stored_snapshot",
			Limit: limit, Offset: offset, NextOffset: next, Returned: min(n, limit),
			GeneratedAt: time.Now().UTC().Format(time.RFC3339)}})
	}
	fail := func(w http.ResponseWriter, err error) {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	mux.HandleFunc("GET /api/v1/developer/insights", func(w http.ResponseWriter, r *http.Request) {
		limit, offset := page(r)
		today := time.Now().UTC()
		from, to := r.URL.Query().Get("from"), r.URL.Query().Get("to")
		if to == "" {
			to = today.Format(time.DateOnly)
		}
		if from == "" {
			from = today.AddDate(0, 0, -29).Format(time.DateOnly)
		}
		rows, err := pool.Query(r.Context(), baselineInsights, *org, from, to, limit+1, offset)
		if err != nil {
			fail(w, err)
			return
		}
		out := make([]bInsight, 0, limit+1)
		for rows.Next() {
			var x bInsight
			if err := rows.Scan(&x.ID, &x.PlatformAdAccountID, &x.AttributionWindow, &x.CampaignID, &x.Date, &x.SyncedAt,
				&x.Account.Currency, &x.Account.Timezone, &x.PurchaseMeasurement, &x.Spend, &x.CTR, &x.CPC, &x.CPM,
				&x.Impressions, &x.Reach, &x.Clicks, &x.Purchases, &x.PurchaseValue, &x.ROAS); err != nil {
				fail(w, err)
				return
			}
			x.Date += "T00:00:00Z"
			out = append(out, x)
		}
		if err := rows.Err(); err != nil {
			fail(w, err)
			return
		}
		n := len(out)
		write(w, out[:min(n, limit)], n, limit, offset)
	})
	mux.HandleFunc("GET /api/v1/developer/accounts", func(w http.ResponseWriter, r *http.Request) {
		limit, offset := page(r)
		rows, err := pool.Query(r.Context(), baselineAccounts, *org, limit+1, offset)
		if err != nil {
			fail(w, err)
			return
		}
		out := make([]bAccount, 0, limit+1)
		for rows.Next() {
			var x bAccount
			if err := rows.Scan(&x.ID, &x.AccountName, &x.Currency, &x.Timezone, &x.IsActive, &x.LastSyncAt); err != nil {
				fail(w, err)
				return
			}
			out = append(out, x)
		}
		if err := rows.Err(); err != nil {
			fail(w, err)
			return
		}
		n := len(out)
		write(w, out[:min(n, limit)], n, limit, offset)
	})
	mux.HandleFunc("GET /api/v1/developer/campaigns", func(w http.ResponseWriter, r *http.Request) {
		limit, offset := page(r)
		rows, err := pool.Query(r.Context(), baselineCampaigns, *org, limit+1, offset)
		if err != nil {
			fail(w, err)
			return
		}
		out := make([]bCampaign, 0, limit+1)
		for rows.Next() {
			var x bCampaign
			if err := rows.Scan(&x.ID, &x.PlatformAdAccountID, &x.Name, &x.Objective, &x.Status, &x.EffectiveStatus,
				&x.DailyBudget, &x.LifetimeBudget, &x.SyncedAt, &x.Account.Currency, &x.Account.Timezone); err != nil {
				fail(w, err)
				return
			}
			out = append(out, x)
		}
		if err := rows.Err(); err != nil {
			fail(w, err)
			return
		}
		n := len(out)
		write(w, out[:min(n, limit)], n, limit, offset)
	})
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
