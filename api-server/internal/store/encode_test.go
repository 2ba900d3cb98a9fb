package store

import (
	"database/sql"
	"encoding/json"
	"math"
	"testing"
	"time"
)

// The wire forms of SPEC §2 as encoding/json writes them: the generated
// encoders must write the same bytes.
type (
	wireAccount struct {
		ID          string     `json:"id"`
		AccountName string     `json:"accountName"`
		Currency    string     `json:"currency"`
		Timezone    string     `json:"timezone"`
		IsActive    bool       `json:"isActive"`
		LastSyncAt  *time.Time `json:"lastSyncAt"`
	}
	wireRef struct {
		Currency string `json:"currency"`
		Timezone string `json:"timezone"`
	}
	wireCampaign struct {
		ID                  string     `json:"id"`
		PlatformAdAccountID string     `json:"platformAdAccountId"`
		Name                string     `json:"name"`
		Objective           string     `json:"objective"`
		Status              string     `json:"status"`
		EffectiveStatus     *string    `json:"effectiveStatus"`
		DailyBudget         *string    `json:"dailyBudget"`
		LifetimeBudget      *string    `json:"lifetimeBudget"`
		SyncedAt            *time.Time `json:"syncedAt"`
		Account             wireRef    `json:"account"`
	}
	wireInsight struct {
		ID                  string     `json:"id"`
		PlatformAdAccountID string     `json:"platformAdAccountId"`
		AttributionWindow   string     `json:"attributionWindow"`
		CampaignID          *string    `json:"campaignId"`
		Date                *string    `json:"date"`
		SyncedAt            *time.Time `json:"syncedAt"`
		Account             wireRef    `json:"account"`
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
)

func tp(t NullTime) *time.Time {
	if !t.Valid {
		return nil
	}
	return &t.Time
}

func sp(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	return &s.String
}

func fp(f sql.NullFloat64) *float64 {
	if !f.Valid {
		return nil
	}
	return &f.Float64
}

func checkJSON[R any](t *testing.T, name string, rows []R, want any) {
	t.Helper()
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := PageOf(rows).AppendJSON(nil, len(rows))
	if !ok || string(got) != string(w) {
		t.Errorf("%s:\n got %s\nwant %s", name, got, w)
	}
}

// TestEncoders: the generated encoders write encoding/json's bytes for the
// wire forms, and the purchase fields only when measured (SPEC §2 rule 1).
func TestEncoders(t *testing.T) {
	weird := "a\"b\\c<d>e&f\x00\x01\b\f\n\r\t\x1f é 日本 \u2028\u2029 \xff\xfe end \u202e\u200b"
	ns := func(s string) sql.NullString { return sql.NullString{String: s, Valid: true} }
	nf := func(f float64) sql.NullFloat64 { return sql.NullFloat64{Float64: f, Valid: true} }
	nt := func(t time.Time) NullTime { return NullTime{Time: t, Valid: true} }
	accounts := []AccountRow{
		{ID: "acc_1", AccountName: weird, Currency: "EUR", Timezone: "Europe/Berlin", IsActive: true,
			LastSyncAt: nt(time.Date(2026, 11, 20, 6, 0, 0, 123456789, time.UTC))},
		{ID: "acc_2"},
	}
	var wa []wireAccount
	for _, r := range accounts {
		wa = append(wa, wireAccount{r.ID, r.AccountName, r.Currency, r.Timezone, r.IsActive, tp(r.LastSyncAt)})
	}
	checkJSON(t, "accounts", accounts, wa)
	campaigns := []CampaignRow{{ID: "c", Name: weird, DailyBudget: ns("25.50"), SyncedAt: nt(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)),
		Currency: "JPY", Timezone: "Asia/Tokyo"}}
	var wc []wireCampaign
	for _, r := range campaigns {
		wc = append(wc, wireCampaign{r.ID, r.PlatformAdAccountID, r.Name, r.Objective, r.Status, sp(r.EffectiveStatus),
			sp(r.DailyBudget), sp(r.LifetimeBudget), tp(r.SyncedAt), wireRef{r.Currency, r.Timezone}})
	}
	checkJSON(t, "campaigns", campaigns, wc)
	insights := []InsightRow{
		{ID: "i1", CampaignID: ns("c"), Date: "2026-11-19", PurchaseMeasurement: "reported_purchase_value", Spend: "12.50", CTR: "1.2", CPC: "0.40", CPM: "6.10",
			Impressions: 2049, Reach: -1, Clicks: math.MaxInt64, Purchases: nf(2), PurchaseValue: nf(80.125), ROAS: nf(6.4)},
		{ID: "i2", Date: "2026-11-18", PurchaseMeasurement: "reported_purchase_count", Purchases: nf(1e-7), PurchaseValue: nf(1e21), ROAS: nf(math.Copysign(0, -1))},
		{ID: "i3", Date: "2026-11-17", PurchaseMeasurement: "x", Purchases: nf(123456789012345678), PurchaseValue: nf(5e-324), ROAS: nf(math.MaxFloat64)},
		{ID: "i4", Date: "2026-11-16", PurchaseMeasurement: "unavailable", Purchases: nf(3), PurchaseValue: nf(4), ROAS: nf(5)},
	}
	var wi []wireInsight
	for _, r := range insights {
		d := r.Date + "T00:00:00Z"
		w := wireInsight{r.ID, r.PlatformAdAccountID, r.AttributionWindow, sp(r.CampaignID), &d, tp(r.SyncedAt),
			wireRef{r.Currency, r.Timezone}, r.PurchaseMeasurement, r.Spend, r.CTR, r.CPC, r.CPM, r.Impressions, r.Reach, r.Clicks,
			fp(r.Purchases), fp(r.PurchaseValue), fp(r.ROAS)}
		if r.PurchaseMeasurement == "unavailable" {
			w.Purchases, w.PurchaseValue, w.ROAS = nil, nil, nil
		}
		wi = append(wi, w)
	}
	checkJSON(t, "insights", insights, wi)
	checkJSON(t, "empty", []InsightRow{}, []wireInsight{})
	if _, ok := PageOf([]InsightRow{{Purchases: nf(math.NaN())}}).AppendJSON(nil, 1); ok {
		t.Error("NaN: want !ok")
	}
}
