package server

import (
	"math/big"
	"testing"

	"github.com/adsnap/svc/api-server/internal/store"
)

// TestSummaryRatios: the ratios of a group are its exact sums' quotients,
// rounded once, half away from zero, to exactly 4 places (openapi.yaml,
// InsightSummaryGroup), null where the denominator is 0.
func TestSummaryRatios(t *testing.T) {
	for _, tc := range []struct {
		num, den string
		mul      int64
		want     string
	}{
		{"1", "20000", 1, "0.0001"},   // 0.00005: a half, away from zero
		{"-1", "20000", 1, "-0.0001"}, // and below zero
		{"1", "30000", 1, "0.0000"},
		{"27", "25", 1, "1.0800"},
		{"561.50", "88639", 1000, "6.3347"},
		{"1520", "88639", 100, "1.7148"},
	} {
		num, _ := new(big.Rat).SetString(tc.num)
		den, _ := new(big.Rat).SetString(tc.den)
		if got := ratio(num, den, tc.mul); got == nil || *got != tc.want {
			t.Errorf("%s/%s×%d = %v, want %s", tc.num, tc.den, tc.mul, got, tc.want)
		}
	}
	if got := ratio(big.NewRat(1, 1), new(big.Rat), 1); got != nil {
		t.Errorf("a zero denominator gave %s", *got)
	}
	// Purchase figures are null where no row has evidence, whatever the
	// store's strings; the ROAS divides by the spend of the rows with a value.
	g := summaryItem("account", &store.SummaryGroup{Currency: "EUR", Rows: 2, Days: 1, Spend: "10.00", Impressions: 0, Clicks: 0,
		PurchaseRows: 0, Purchases: "3", PurchaseValueRows: 1, PurchaseValue: "12.5", ValueSpend: "5.00"})
	if g.Purchases != nil || g.PurchaseValue == nil || *g.PurchaseValue != "12.5" || g.ROAS == nil || *g.ROAS != "2.5000" ||
		g.CTR != nil || g.CPC != nil || g.CPM != nil || g.AccountID != nil {
		t.Errorf("%+v", g)
	}
}
