package query

import (
	"slices"
	"testing"
)

// TestParseSummary: level and groupBy of GET /insights/summary, with the
// messages svctest uses (sdk-go/svctest), in svc-api's order: unknown and
// repeated parameters, limit, offset, accountId, level and groupBy, dates.
func TestParseSummary(t *testing.T) {
	p, probs := Parse("level=campaign", Summary, now)
	if len(probs) != 0 || p.Level != "campaign" || p.GroupBy != "total" || p.Limit != DefaultLimit || p.From == "" || p.To == "" {
		t.Fatalf("defaults: %+v %v", p, probs)
	}
	for _, g := range []string{"total", "account", "campaign", "day", "week", "month", "account,day", "campaign,day"} {
		p, probs := Parse("level=campaign&groupBy="+g, Summary, now)
		if len(probs) != 0 || p.GroupBy != g {
			t.Errorf("groupBy=%s: %+v %v", g, p, probs)
		}
	}
	for q, want := range map[string][]string{
		"":                                 {"level is required: account or campaign"},
		"level=both&groupBy=year":          {"level must be account or campaign", "groupBy must be one of total, account, campaign, day, week, month, account,day, campaign,day"},
		"level=account&groupBy=campaign":   {"groupBy campaign needs level campaign: account-level rows have no campaign"},
		"level=Account":                    {"level must be account or campaign"},
		"level=account&level=campaign":     {"query parameter level is repeated; give it once"},
		"level=account&foo=1&from=2026-13": {`unknown query parameter "foo" (allowed: limit, offset, accountId, from, to, level, groupBy, sort, top, compareFrom, compareTo, status, having)`, "from must be a date YYYY-MM-DD (UTC)"},
		"limit=0&groupBy=week&to=2026-13-01": {"limit must be between 1 and 100, got 0", "level is required: account or campaign",
			"to must be a date YYYY-MM-DD (UTC)"},
	} {
		if _, got := Parse(q, Summary, now); !slices.Equal(got, want) {
			t.Errorf("%q: got %q, want %q", q, got, want)
		}
	}
	// The lists do not take level or groupBy.
	if _, probs := Parse("level=account", Insights, now); len(probs) != 1 {
		t.Errorf("insights took level: %v", probs)
	}
}
