package query

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// The answers of GET /insights/summary in one request (DESIGN §4a, "Answers
// people ask for"; issue 46): sort and top within each currency, a second
// period to compare with, and the status and having filters. Each is
// optional; summaryOptions reads them after level and groupBy.

// The groupings that keep the day within an account or a campaign.
const (
	GroupAccountDay  = "account,day"
	GroupCampaignDay = "campaign,day"
)

// SummaryFields are the summed figures that sort and having name, in the
// order of openapi.yaml.
var SummaryFields = []string{"spend", "impressions", "clicks", "purchases", "purchaseValue", "ctr", "cpc", "cpm", "roas"}

// HavingOps are the comparisons of a having condition.
var HavingOps = []string{"=", "!=", ">", ">=", "<", "<="}

// MaxTop is the largest top; MaxConditions the most conditions of having.
const (
	MaxTop        = 1000
	MaxConditions = 10
)

// Condition is one condition of having: Field Op Value, Value a decimal
// number as given (an optional '-', digits, an optional fraction).
type Condition struct {
	Field, Op, Value string
}

// SummaryOptions are the summary's optional answers. The zero value asks
// for none of them.
type SummaryOptions struct {
	// Sort is a field of SummaryFields ("" for the API's order) and Desc
	// its direction; Top keeps the first Top groups of each currency (0:
	// all).
	Sort string
	Desc bool
	Top  int
	// CompareFrom and CompareTo are the second period (YYYY-MM-DD), both
	// or neither.
	CompareFrom, CompareTo string
	// Status keeps the groups whose account or campaign has one of these
	// statuses; Having the groups that meet every condition.
	Status []string
	Having []Condition
}

// Ranked reports whether the groups must all be read and finished in Go
// (sorted, cut, compared or filtered) before a page is taken.
func (o *SummaryOptions) Ranked() bool {
	return o.Sort != "" || o.CompareFrom != "" || len(o.Status) > 0 || len(o.Having) > 0
}

// The messages of the options; sdk-go/svctest holds the same texts.
const (
	msgSort            = "sort must be one of spend, impressions, clicks, purchases, purchaseValue, ctr, cpc, cpm, roas, with a leading - for descending (e.g. -spend)"
	msgTopNeedsSort    = "top needs sort: the top groups by which figure (e.g. sort=-spend&top=5)"
	msgComparePair     = "compareFrom and compareTo go together: give both or neither"
	msgCompareGrouping = "compareFrom and compareTo need groupBy total, account or campaign: days, weeks and months have no counterpart in another period"
	msgStatus          = "status must be a comma-separated list of statuses such as PAUSED,ARCHIVED (letters and _, at most 32 each)"
	msgStatusGrouping  = "status needs groupBy account, campaign, account,day or campaign,day: it is the status of the group's account or campaign"
	msgHavingSyntax    = "having %q: a condition is field op number, field one of spend, impressions, clicks, purchases, purchaseValue, ctr, cpc, cpm, roas, op one of = != > >= < <=, number an integer or a decimal (e.g. clicks=0,impressions>0)"
	msgHavingMany      = "having has more than 10 conditions"
)

var (
	reStatus    = regexp.MustCompile(`^[A-Za-z_]{1,32}$`)
	reCondition = regexp.MustCompile(`^([A-Za-z]+)(!=|>=|<=|=|>|<)(-?[0-9]{1,18}(?:\.[0-9]{1,18})?)$`)
)

// summaryOptions reads sort, top, compareFrom, compareTo, status and having
// into p.Options, after level and groupBy. A repeated parameter was
// reported already and is not read.
func summaryOptions(p *Params, values url.Values, now time.Time, problems []string) []string {
	get := func(k string) (string, bool) {
		v, ok := values[k]
		if !ok || len(v) != 1 {
			return "", false
		}
		return v[0], true
	}
	o := &SummaryOptions{}
	p.Options = o
	if v, ok := get("sort"); ok {
		o.Desc = strings.HasPrefix(v, "-")
		o.Sort = strings.TrimPrefix(v, "-")
		if !slices.Contains(SummaryFields, o.Sort) {
			problems = append(problems, msgSort)
		}
	}
	if v, ok := get("top"); ok {
		n, msg := integer("top", v, 1, MaxTop)
		if msg != "" {
			problems = append(problems, msg)
		}
		o.Top = n
		if _, sorted := values["sort"]; !sorted {
			problems = append(problems, msgTopNeedsSort)
		}
	}
	problems = comparePeriod(p, values, now, problems)
	timeOnly := p.GroupBy == GroupTotal || p.GroupBy == GroupDay || p.GroupBy == GroupWeek || p.GroupBy == GroupMonth
	if v, ok := get("status"); ok {
		for _, s := range strings.Split(v, ",") {
			if !reStatus.MatchString(s) {
				problems = append(problems, msgStatus)
				break
			}
			o.Status = append(o.Status, s)
		}
		if timeOnly {
			problems = append(problems, msgStatusGrouping)
		}
	}
	if v, ok := get("having"); ok {
		problems = having(o, v, problems)
	}
	return problems
}

// comparePeriod reads compareFrom and compareTo under the rules of from and
// to (dates, none in the future, at most 90 days, from before to).
func comparePeriod(p *Params, values url.Values, now time.Time, problems []string) []string {
	_, hasFrom := values["compareFrom"]
	_, hasTo := values["compareTo"]
	if !hasFrom && !hasTo {
		return problems
	}
	if hasFrom != hasTo {
		return append(problems, msgComparePair)
	}
	if p.GroupBy != GroupTotal && p.GroupBy != GroupAccount && p.GroupBy != GroupCampaign {
		problems = append(problems, msgCompareGrouping)
	}
	var second Params
	n := len(problems)
	problems = dates(&second, url.Values{"from": values["compareFrom"], "to": values["compareTo"]}, now, problems)
	for i := n; i < len(problems); i++ {
		problems[i] = renameCompare(problems[i])
	}
	o := p.Options
	o.CompareFrom, o.CompareTo = second.From, second.To
	return problems
}

// renameCompare says compareFrom and compareTo in a message of dates.
func renameCompare(msg string) string {
	switch {
	case msg == "from must not be after to":
		return "compareFrom must not be after compareTo"
	case strings.HasPrefix(msg, "from "):
		return "compareFrom " + strings.TrimPrefix(msg, "from ")
	case strings.HasPrefix(msg, "to "):
		return "compareTo " + strings.TrimPrefix(msg, "to ")
	}
	return "compare period: " + strings.TrimPrefix(msg, "the ")
}

// having reads the comma-separated conditions of v, every problem listed.
func having(o *SummaryOptions, v string, problems []string) []string {
	parts := strings.Split(v, ",")
	if len(parts) > MaxConditions {
		return append(problems, msgHavingMany)
	}
	for _, c := range parts {
		m := reCondition.FindStringSubmatch(c)
		if m == nil || !slices.Contains(SummaryFields, m[1]) {
			problems = append(problems, fmt.Sprintf(msgHavingSyntax, c))
			continue
		}
		o.Having = append(o.Having, Condition{Field: m[1], Op: m[2], Value: m[3]})
	}
	return problems
}
