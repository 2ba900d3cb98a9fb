package store_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
)

// TestCountSumsChecked (security review 2, finding 4): rows written around
// the import's bound with impressions 2^63−1 never give a wrapped sum: on
// PostgreSQL the recomputation of the per-day sums (the one a writer other
// than the import runs, insights_daily_aggregates_refresh) fails with
// bigint out of range, on SQLite the summary fails with ErrCountOverflow
// where it answered −2.
func TestCountSumsChecked(t *testing.T) {
	today := time.Now().UTC()
	for _, b := range []dbtest.Backend{dbtest.Postgres(t), dbtest.SQLite(t)} {
		ctx := t.Context()
		testenv.Seed(t, b.DB, today)
		const day = "2001-01-01" // no other row that day
		var errs []error
		for _, id := range []string{"ins_max_1", "ins_max_2"} {
			_, err := b.DB.ExecContext(ctx, `INSERT INTO insights_daily (id, organization_id, account_id, campaign_id,
				platform_ad_account_id, currency, timezone, date, attribution_window, purchase_measurement,
				spend, ctr, cpc, cpm, impressions, reach, clicks, updated_at)
				VALUES (?, 'org_a', 'acc_a1', NULL, 'p', 'EUR', 'UTC', ?, 'w', 'unavailable', '1', '1', '1', '1', ?, 1, 1, ?)`,
				id, day, int64(math.MaxInt64), today)
			errs = append(errs, err)
		}
		if b.Name == "postgres" {
			_, err := b.DB.ExecContext(ctx, `SELECT insights_daily_aggregates_refresh()`)
			if errs[0] != nil || errs[1] != nil || err == nil || !strings.Contains(err.Error(), "22003") {
				t.Errorf("postgres: inserts %v, sums recomputed: %v; want the sums refused with SQLSTATE 22003", errs, err)
			}
			continue
		}
		if errs[0] != nil || errs[1] != nil {
			t.Fatalf("sqlite inserts: %v", errs)
		}
		st, err := store.New(ctx, b.Handle)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		_, groups, err := st.InsightSummary(ctx, "org_a", store.SummaryParams{Limit: 10, Level: "account", GroupBy: "total",
			From: day, To: day}, nil)
		if !errors.Is(err, store.ErrCountOverflow) {
			t.Errorf("sqlite summary: %+v, %v; want ErrCountOverflow", groups, err)
		}
	}
}
