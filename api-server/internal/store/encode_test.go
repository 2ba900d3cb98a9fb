package store

import (
	"database/sql"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/store/schema"
)

// refJSON is the reference encoding of a row: the structure from the
// declaration, every key and value written by encoding/json.
func refJSON(t *testing.T, res schema.Resource, row any) string {
	t.Helper()
	rv := reflect.ValueOf(row)
	var b strings.Builder
	group := ""
	b.WriteString("{")
	n := 0
	for _, f := range res.Fields {
		if !f.Read {
			continue
		}
		if f.Group != group {
			if group != "" {
				b.WriteString("}")
			}
			if f.Group != "" {
				if n > 0 {
					b.WriteString(",")
				}
				k, _ := json.Marshal(f.Group)
				b.Write(k)
				b.WriteString(":{")
				n = 0
			}
			group = f.Group
		}
		if n > 0 {
			b.WriteString(",")
		}
		n++
		var v any
		switch x := rv.FieldByName(f.Go).Interface().(type) {
		case string:
			v = x
			if f.Type == schema.Date {
				v = x + "T00:00:00Z"
			}
		case sql.NullString:
			v = sp(x)
		case sql.NullFloat64:
			v = fp(x)
		case NullTime:
			v = tp(x)
		default:
			v = x
		}
		if f.Measured && rv.FieldByName(res.Measurement).String() == res.Unmeasured {
			v = nil
		}
		k, _ := json.Marshal(f.JSON)
		val, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(k)
		b.WriteString(":")
		b.Write(val)
	}
	if group != "" {
		b.WriteString("}")
	}
	b.WriteString("}")
	return b.String()
}

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

func checkJSON[R any](t *testing.T, name string, res schema.Resource, rows []R) {
	t.Helper()
	refs := make([]string, len(rows))
	for i := range rows {
		refs[i] = refJSON(t, res, rows[i])
	}
	w := "[" + strings.Join(refs, ",") + "]"
	got, ok := PageOf(rows).AppendJSON(nil, len(rows))
	if !ok || string(got) != string(w) {
		t.Errorf("%s:\n got %s\nwant %s", name, got, w)
	}
}

// TestEncoders: the generated encoders write encoding/json's bytes in the
// declared structure, and the purchase fields only when measured (SPEC §2
// rule 1).
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
	checkJSON(t, "accounts", schema.Account, accounts)
	campaigns := []CampaignRow{{ID: "c", Name: weird, DailyBudget: ns("25.50"), SyncedAt: nt(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)),
		Currency: "JPY", Timezone: "Asia/Tokyo"}}
	checkJSON(t, "campaigns", schema.Campaign, campaigns)
	insights := []InsightRow{
		{ID: "i1", CampaignID: ns("c"), Date: "2026-11-19", PurchaseMeasurement: "reported_purchase_value", Spend: "12.50", CTR: "1.2", CPC: "0.40", CPM: "6.10",
			Impressions: 2049, Reach: -1, Clicks: math.MaxInt64, Purchases: nf(2), PurchaseValue: nf(80.125), ROAS: nf(6.4)},
		{ID: "i2", Date: "2026-11-18", PurchaseMeasurement: "reported_purchase_count", Purchases: nf(1e-7), PurchaseValue: nf(1e21), ROAS: nf(math.Copysign(0, -1))},
		{ID: "i3", Date: "2026-11-17", PurchaseMeasurement: "x", Purchases: nf(123456789012345678), PurchaseValue: nf(5e-324), ROAS: nf(math.MaxFloat64)},
		{ID: "i4", Date: "2026-11-16", PurchaseMeasurement: "unavailable", Purchases: nf(3), PurchaseValue: nf(4), ROAS: nf(5)},
	}
	checkJSON(t, "insights", schema.Insight, insights)
	checkJSON(t, "empty", schema.Insight, []InsightRow{})
	// The structure itself, as SPEC §2 gives it (the reference above follows the declaration).
	got, _ := PageOf(insights[3:]).AppendJSON(nil, 1)
	if want := `[{"id":"i4","platformAdAccountId":"","attributionWindow":"","campaignId":null,"date":"2026-11-16T00:00:00Z","syncedAt":null,` +
		`"account":{"currency":"","timezone":""},"purchaseMeasurement":"unavailable","spend":"","ctr":"","cpc":"","cpm":"",` +
		`"impressions":0,"reach":0,"clicks":0,"purchases":null,"purchaseValue":null,"roas":null`; !strings.HasPrefix(string(got), want) {
		t.Errorf("insight:\n got %s\nwant %s…", got, want)
	}
	if _, ok := PageOf([]InsightRow{{Purchases: nf(math.NaN())}}).AppendJSON(nil, 1); ok {
		t.Error("NaN: want !ok")
	}
}
