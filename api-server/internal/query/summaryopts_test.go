package query

import (
	"net/url"
	"reflect"
	"slices"
	"testing"
)

// TestParseSummaryOptions: sort, top, the second period and the filters of
// GET /insights/summary (issue 46), read and refused with every problem.
func TestParseSummaryOptions(t *testing.T) {
	q := url.Values{"level": {"campaign"}, "groupBy": {"campaign"}, "sort": {"-spend"}, "top": {"5"},
		"from": {"2026-11-01"}, "to": {"2026-11-07"}, "compareFrom": {"2026-10-25"}, "compareTo": {"2026-10-31"},
		"status": {"PAUSED,ARCHIVED"}, "having": {"clicks=0,impressions>0,spend>=12.50,roas!=-1"}}
	p, probs := Parse(q.Encode(), Summary, now)
	want := SummaryOptions{Sort: "spend", Desc: true, Top: 5, CompareFrom: "2026-10-25", CompareTo: "2026-10-31",
		Status: []string{"PAUSED", "ARCHIVED"}, Having: []Condition{{"clicks", "=", "0"}, {"impressions", ">", "0"}, {"spend", ">=", "12.50"}, {"roas", "!=", "-1"}}}
	if len(probs) != 0 || p.Options == nil || !reflect.DeepEqual(*p.Options, want) || !p.Options.Ranked() {
		t.Fatalf("%+v %q", p.Options, probs)
	}
	if p, _ := Parse("level=account", Summary, now); p.Options == nil || p.Options.Ranked() {
		t.Errorf("no option: %+v", p.Options)
	}
	if p, _ := Parse("level=account&groupBy=account,day", Summary, now); p.GroupBy != GroupAccountDay {
		t.Errorf("account,day: %+v", p)
	}
	for raw, wantProbs := range map[string][]string{
		"level=account&sort=name&top=0":                                         {msgSort, "top must be between 1 and 1000, got 0"},
		"level=account&top=5":                                                   {msgTopNeedsSort},
		"level=account&compareFrom=2026-11-01":                                  {msgComparePair},
		"level=account&groupBy=day&compareFrom=2026-11-01&compareTo=2026-11-02": {msgCompareGrouping},
		"level=account&compareFrom=2026-11-09&compareTo=2026-11-02":             {"compareFrom must not be after compareTo"},
		"level=account&compareFrom=2026-01-01&compareTo=2026-11-02":             {"compare period: range from 2026-01-01 to 2026-11-02 covers 306 days; at most 90 are allowed"},
		"level=account&compareFrom=2026-11-30&compareTo=2026-12-01": {"compareFrom must not be in the future (today is 2026-11-21 UTC)",
			"compareTo must not be in the future (today is 2026-11-21 UTC)"},
		"level=account&status=PAUSED":              {msgStatusGrouping},
		"level=account&groupBy=account&status=a-b": {msgStatus},
		"level=account&having=clicks%3D%3D0,foo>1,spend>1e3,cpc<0.5": {`having "clicks==0": a condition is field op number, field one of spend, impressions, clicks, purchases, purchaseValue, ctr, cpc, cpm, roas, op one of = != > >= < <=, number an integer or a decimal (e.g. clicks=0,impressions>0)`,
			`having "foo>1": a condition is field op number, field one of spend, impressions, clicks, purchases, purchaseValue, ctr, cpc, cpm, roas, op one of = != > >= < <=, number an integer or a decimal (e.g. clicks=0,impressions>0)`,
			`having "spend>1e3": a condition is field op number, field one of spend, impressions, clicks, purchases, purchaseValue, ctr, cpc, cpm, roas, op one of = != > >= < <=, number an integer or a decimal (e.g. clicks=0,impressions>0)`},
		"level=account&having=clicks=0,clicks=0,clicks=0,clicks=0,clicks=0,clicks=0,clicks=0,clicks=0,clicks=0,clicks=0,clicks=0": {msgHavingMany},
	} {
		if _, got := Parse(raw, Summary, now); !slices.Equal(got, wantProbs) {
			t.Errorf("%s:\n got %q\nwant %q", raw, got, wantProbs)
		}
	}
}
