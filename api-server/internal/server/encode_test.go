package server

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

// TestAppendEnvelope: the hand-written encoder writes encoding/json's bytes.
func TestAppendEnvelope(t *testing.T) {
	str := func(s string) *string { return &s }
	flt := func(f float64) *float64 { return &f }
	tm := func(t time.Time) *time.Time { return &t }
	next := 51
	m := meta{Source: "stored_snapshot", Limit: 50, Offset: 1, NextOffset: &next, Returned: 50,
		GeneratedAt: "2026-11-21T06:00:00Z", DataAsOf: "2026-11-21T06:00:00Z", Note: Note}
	weird := "a\"b\\c<d>e&f\x00\x01\b\f\n\r\t\x1f é 日本 \u2028\u2029 \xff\xfe end \u202e\u200b"
	accounts := []account{
		{ID: "acc_1", AccountName: weird, Currency: "EUR", Timezone: "Europe/Berlin", IsActive: true,
			LastSyncAt: tm(time.Date(2026, 11, 20, 6, 0, 0, 123456789, time.UTC))},
		{ID: "acc_2", AccountName: "", LastSyncAt: nil},
	}
	campaigns := []campaign{
		{ID: "c", Name: weird, EffectiveStatus: nil, DailyBudget: str("25.50"), LifetimeBudget: nil,
			SyncedAt: tm(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)), Account: accountRef{Currency: "JPY", Timezone: "Asia/Tokyo"}},
	}
	insights := []insight{
		{ID: "i1", CampaignID: str("c"), Date: str("2026-11-19T00:00:00Z"), Spend: "12.50", CTR: "1.2", CPC: "0.40", CPM: "6.10",
			Impressions: 2049, Reach: -1, Clicks: math.MaxInt64, Purchases: flt(2), PurchaseValue: flt(80.125), ROAS: flt(6.4)},
		{ID: "i2", Purchases: flt(1e-7), PurchaseValue: flt(1e21), ROAS: flt(-0.0)},
		{ID: "i3", Purchases: flt(123456789012345678), PurchaseValue: flt(5e-324), ROAS: flt(math.MaxFloat64)},
	}
	check := func(name string, got []byte, ok bool, v any) {
		t.Helper()
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if !ok || string(got) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
	ea := envelope[account]{Data: accounts, Meta: m}
	b, ok := appendEnvelope(nil, &ea)
	check("accounts", b, ok, ea)
	ec := envelope[campaign]{Data: campaigns, Meta: m}
	b, ok = appendEnvelope(nil, &ec)
	check("campaigns", b, ok, ec)
	ei := envelope[insight]{Data: insights, Meta: meta{Note: Note}}
	b, ok = appendEnvelope(nil, &ei)
	check("insights", b, ok, ei)
	empty := envelope[insight]{Data: []insight{}, Meta: m}
	b, ok = appendEnvelope(nil, &empty)
	check("empty", b, ok, empty)
	bad := envelope[insight]{Data: []insight{{Purchases: flt(math.NaN())}}}
	if _, ok := appendEnvelope(nil, &bad); ok {
		t.Error("NaN: want a fall-back to encoding/json")
	}
}
