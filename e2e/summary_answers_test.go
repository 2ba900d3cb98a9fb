package e2e

// summaryKeys are the fields of InsightSummaryGroup that the oracle
// (harness.ExpectedSummary) computes.
var summaryKeys = []string{"level", "currency", "accountId", "campaignId", "periodStart", "periodEnd", "rows", "days", "spend",
	"impressions", "clicks", "ctr", "cpc", "cpm", "purchaseRows", "purchases", "purchaseValueRows", "purchaseValue", "roas"}

// withoutAnswers is groups as the oracle computes them: without the names
// and status of issue 46 (checked by the store's tests on both dialects
// and by TestMCPTenQuestions), and with the columns that svc mcp leaves out
// when null in every row put back as null.
func withoutAnswers(groups []any) []any {
	out := make([]any, len(groups))
	for i, g := range groups {
		m, ok := g.(map[string]any)
		if !ok {
			out[i] = g
			continue
		}
		c := map[string]any{}
		for _, k := range summaryKeys {
			c[k] = m[k]
		}
		out[i] = c
	}
	return out
}
