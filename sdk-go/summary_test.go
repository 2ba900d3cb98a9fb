package svc

import "testing"

func TestSummarizeInsights(t *testing.T) {
	t.Parallel()
	eur := AccountRef{Currency: "EUR", Timezone: "Europe/Berlin"}
	usd := AccountRef{Currency: "USD", Timezone: "America/New_York"}
	row := func(acc AccountRef, campaign string, pm PurchaseMeasurement, spend string, imp, clicks int64, purchases, value *float64) Insight {
		in := Insight{Account: acc, PurchaseMeasurement: pm, Spend: Decimal(spend),
			Impressions: imp, Reach: imp / 2, Clicks: clicks, Purchases: purchases, PurchaseValue: value}
		if campaign != "" {
			in.CampaignID = &campaign
		}
		return in
	}
	rows := []Insight{
		// USD rows come first: the output is sorted anyway.
		row(usd, "c9", PurchaseValueReported, "10", 100, 1, ptr(1.0), ptr(0.1)),
		row(usd, "c9", PurchaseValueReported, "0.005", 1, 0, ptr(2.0), ptr(0.2)),
		row(eur, "", PurchaseValueReported, "12.50", 2049, 31, ptr(2.0), ptr(80.0)),
		row(eur, "", PurchaseValueReported, "7.5", 1000, 9, ptr(1.0), ptr(19.99)),
		row(eur, "c1", PurchaseValueReported, "3.10", 500, 5, ptr(1.0), ptr(40.0)),
		// No purchase evidence: the campaign-level EUR totals are unavailable.
		row(eur, "c2", PurchaseUnavailable, "1.00", 10, 0, nil, nil),
		// A count without a value: USD account-level value unavailable.
		row(usd, "", PurchaseCountReported, "1e1", 7, 2, ptr(3.0), nil),
	}
	got := SummarizeInsights(rows)
	want := []InsightSummary{
		{Currency: "EUR", Level: LevelAccount, Rows: 2, Spend: "20.00", Impressions: 3049, Clicks: 40,
			Purchases: ptr(Decimal("3")), PurchaseValue: ptr(Decimal("99.99"))},
		{Currency: "EUR", Level: LevelCampaign, Rows: 2, Spend: "4.10", Impressions: 510, Clicks: 5},
		{Currency: "USD", Level: LevelAccount, Rows: 1, Spend: "10", Impressions: 7, Clicks: 2,
			Purchases: ptr(Decimal("3"))},
		{Currency: "USD", Level: LevelCampaign, Rows: 2, Spend: "10.005", Impressions: 101, Clicks: 1,
			Purchases: ptr(Decimal("3")), PurchaseValue: ptr(Decimal("0.3"))},
	}
	if d := diff(want, got); d != "" {
		t.Errorf("SummarizeInsights mismatch (path: want, got):\n%s", d)
	}
}

func TestSummarizeInsightsEdgeCases(t *testing.T) {
	t.Parallel()
	if got := SummarizeInsights(nil); len(got) != 0 {
		t.Errorf("SummarizeInsights(nil) = %v, want empty", got)
	}
	// A hand-built row whose spend is not a decimal makes the spend total
	// unavailable, and a missing purchaseMeasurement counts as unavailable.
	got := SummarizeInsights([]Insight{
		{Account: AccountRef{Currency: "EUR"}, Spend: "1.5", Purchases: ptr(1.0), PurchaseValue: ptr(1.0)},
		{Account: AccountRef{Currency: "EUR"}, Spend: "abc", PurchaseMeasurement: PurchaseValueReported},
	})
	want := []InsightSummary{{Currency: "EUR", Level: LevelAccount, Rows: 2}}
	if d := diff(want, got); d != "" {
		t.Errorf("SummarizeInsights mismatch (path: want, got):\n%s", d)
	}
}

func TestDecimalScale(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{"12": 0, "12.50": 2, "1e1": 0, "1.25e1": 1, "1e-3": 3, "-0.4": 1, "1.5E+2": 0} {
		if got := decimalScale(in); got != want {
			t.Errorf("decimalScale(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestInsightTotalsMatchesSummarizeInsights(t *testing.T) {
	t.Parallel()
	rows := []Insight{
		{Account: AccountRef{Currency: "EUR"}, Spend: "1.10", Impressions: 5, PurchaseMeasurement: PurchaseValueReported, Purchases: ptr(1.0), PurchaseValue: ptr(0.1)},
		{Account: AccountRef{Currency: "EUR"}, Spend: "2", Clicks: 3, PurchaseMeasurement: PurchaseValueReported, Purchases: ptr(2.0), PurchaseValue: ptr(0.2)},
		{Account: AccountRef{Currency: "USD"}, CampaignID: ptr("c1"), Spend: "0.005", PurchaseMeasurement: PurchaseUnavailable},
	}
	var tot InsightTotals
	if got := tot.Summaries(); len(got) != 0 {
		t.Errorf("zero InsightTotals = %v, want none", got)
	}
	for _, r := range rows {
		tot.Add(r)
	}
	got := tot.Summaries()
	if d := diff(SummarizeInsights(rows), got); d != "" {
		t.Errorf("InsightTotals differs from SummarizeInsights:\n%s", d)
	}
	if len(got) != 2 || got[0].Spend != "3.10" || *got[0].PurchaseValue != "0.3" || got[1].Purchases != nil {
		t.Errorf("totals %+v", got)
	}
}
