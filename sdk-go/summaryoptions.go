package svc

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// SummaryFields are the figures that SummaryAnswers.Sort and Having name.
var SummaryFields = []string{"spend", "impressions", "clicks", "purchases", "purchaseValue", "ctr", "cpc", "cpm", "roas"}

// SummaryAnswers are the optional answers of Insights.Summary, computed by
// the service in the same request (DESIGN §4a): a ranking within each
// currency, a second period to compare with, and filters. The zero value
// asks for none.
type SummaryAnswers struct {
	// Sort ranks the groups by a figure of SummaryFields, with a leading
	// "-" for descending ("-spend"). Rankings are within each currency:
	// amounts in different currencies are never ranked against each other.
	Sort string
	// Top keeps the first Top groups of each currency after Sort.
	Top int
	// CompareFrom and CompareTo are a second period (both or neither,
	// with GroupByTotal, GroupByAccount or GroupByCampaign): each group then
	// carries Previous and Change.
	CompareFrom, CompareTo Date
	// Status keeps the groups whose campaign (or, grouped by account,
	// account: ACTIVE or INACTIVE) has one of these statuses.
	Status []string
	// Having keeps the groups that meet every condition, each "figure op
	// number" with op one of = != > >= < <= ("clicks=0", "impressions>0").
	Having []string
}

// SummaryFigures are a group's figures over the second period, with the
// arithmetic of InsightSummaryGroup; all zero (ratios and purchase figures
// nil) when the group had no rows then.
type SummaryFigures struct {
	Rows              int      `json:"rows"`
	Days              int      `json:"days"`
	Spend             Decimal  `json:"spend"`
	Impressions       int64    `json:"impressions"`
	Clicks            int64    `json:"clicks"`
	CTR               *Decimal `json:"ctr"`
	CPC               *Decimal `json:"cpc"`
	CPM               *Decimal `json:"cpm"`
	PurchaseRows      int      `json:"purchaseRows"`
	Purchases         *Decimal `json:"purchases"`
	PurchaseValueRows int      `json:"purchaseValueRows"`
	PurchaseValue     *Decimal `json:"purchaseValue"`
	ROAS              *Decimal `json:"roas"`
}

// SummaryChange is the change of each figure against the second period:
// current − previous and, in the …Relative fields, that over |previous| to 4
// decimal places (0.2500 is +25 %); nil where a figure is null, and a
// relative change where the previous value is 0.
type SummaryChange struct {
	Spend                 *Decimal `json:"spend"`
	SpendRelative         *Decimal `json:"spendRelative"`
	Impressions           *Decimal `json:"impressions"`
	ImpressionsRelative   *Decimal `json:"impressionsRelative"`
	Clicks                *Decimal `json:"clicks"`
	ClicksRelative        *Decimal `json:"clicksRelative"`
	Purchases             *Decimal `json:"purchases"`
	PurchasesRelative     *Decimal `json:"purchasesRelative"`
	PurchaseValue         *Decimal `json:"purchaseValue"`
	PurchaseValueRelative *Decimal `json:"purchaseValueRelative"`
	CTR                   *Decimal `json:"ctr"`
	CTRRelative           *Decimal `json:"ctrRelative"`
	CPC                   *Decimal `json:"cpc"`
	CPCRelative           *Decimal `json:"cpcRelative"`
	CPM                   *Decimal `json:"cpm"`
	CPMRelative           *Decimal `json:"cpmRelative"`
	ROAS                  *Decimal `json:"roas"`
	ROASRelative          *Decimal `json:"roasRelative"`
}

var reCondition = regexp.MustCompile(`^([A-Za-z]+)(!=|>=|<=|=|>|<)(-?[0-9]{1,18}(?:\.[0-9]{1,18})?)$`)

// ranked reports whether the answers reorder or filter the groups.
func (a *SummaryAnswers) ranked() bool {
	return a.Sort != "" || !a.CompareFrom.IsZero() || len(a.Status) > 0 || len(a.Having) > 0
}

// query adds the answers to q, with the problems of each.
func (a *SummaryAnswers) query(q url.Values, problems []string, today Date) []string {
	if a.Sort != "" {
		if !slices.Contains(SummaryFields, strings.TrimPrefix(a.Sort, "-")) {
			problems = append(problems, fmt.Sprintf("sort must be one of %s, with a leading - for descending, not %q", strings.Join(SummaryFields, ", "), a.Sort))
		}
		q.Set("sort", a.Sort)
	}
	if a.Top != 0 {
		if a.Top < 1 || a.Top > 1000 || a.Sort == "" {
			problems = append(problems, fmt.Sprintf("top must be between 1 and 1000 and needs sort, not %d", a.Top))
		}
		q.Set("top", strconv.Itoa(a.Top))
	}
	switch {
	case a.CompareFrom.IsZero() && a.CompareTo.IsZero():
	case a.CompareFrom.IsZero() || a.CompareTo.IsZero():
		problems = append(problems, "compareFrom and compareTo go together: give both or neither")
	default:
		if _, err := InsightDates(a.CompareFrom, a.CompareTo, today); err != nil {
			for _, p := range err.(*DateRangeError).Problems {
				problems = append(problems, "compare period: "+p)
			}
		}
		q.Set("compareFrom", a.CompareFrom.String())
		q.Set("compareTo", a.CompareTo.String())
	}
	if len(a.Status) > 0 {
		q.Set("status", strings.Join(a.Status, ","))
	}
	if len(a.Having) > 0 {
		for _, c := range a.Having {
			if m := reCondition.FindStringSubmatch(c); m == nil || !slices.Contains(SummaryFields, m[1]) {
				problems = append(problems, fmt.Sprintf("having %q is not a condition figure op number (e.g. clicks=0)", c))
			}
		}
		q.Set("having", strings.Join(a.Having, ","))
	}
	return problems
}
