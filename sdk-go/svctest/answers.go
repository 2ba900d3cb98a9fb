package svctest

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"regexp"
	"slices"
	"strings"

	svc "github.com/adsnap/svc/sdk-go"
)

// The answers of GET /insights/summary (issue 46): sort and top within each
// currency, compareFrom/compareTo (previous and change), status and having,
// and the names and status of groups by account or campaign, with svc-api's
// messages and arithmetic. As for from and to, the current rows are not
// filtered by date; the compared period sums the rows dated within
// compareFrom..compareTo.

// answers are the summary's options of one request.
type answers struct {
	sort                   string
	desc                   bool
	top                    int
	compareFrom, compareTo svc.Date
	status                 []string
	having                 [][3]string // figure, op, number
}

var (
	reStatus    = regexp.MustCompile(`^[A-Za-z_]{1,32}$`)
	reCondition = regexp.MustCompile(`^([A-Za-z]+)(!=|>=|<=|=|>|<)(-?[0-9]{1,18}(?:\.[0-9]{1,18})?)$`)
)

// answerProblems reads the options after the dates, in svc-api's words.
func (p *params) answerProblems(values url.Values, today svc.Date) []string {
	var problems []string
	one := func(k string) (string, bool) {
		v, ok := values[k]
		return firstOf(v), ok && len(v) == 1
	}
	a := &p.answers
	if v, ok := one("sort"); ok {
		a.desc, a.sort = strings.HasPrefix(v, "-"), strings.TrimPrefix(v, "-")
		if !slices.Contains(svc.SummaryFields, a.sort) {
			problems = append(problems, "sort must be one of spend, impressions, clicks, purchases, purchaseValue, ctr, cpc, cpm, roas, with a leading - for descending (e.g. -spend)")
		}
	}
	if v, ok := one("top"); ok {
		var n int
		if _, err := fmt.Sscanf(v, "%d", &n); err != nil || !plainDigits(v) || len(v) > 12 {
			problems = append(problems, "top must be an integer between 1 and 1000, in plain digits (no sign, no leading zero)")
		} else if n < 1 || n > 1000 {
			problems = append(problems, fmt.Sprintf("top must be between 1 and 1000, got %d", n))
		}
		a.top = n
		if _, sorted := values["sort"]; !sorted {
			problems = append(problems, "top needs sort: the top groups by which figure (e.g. sort=-spend&top=5)")
		}
	}
	problems = append(problems, p.compareProblems(values, today)...)
	timeOnly := p.groupBy == "total" || p.groupBy == "day" || p.groupBy == "week" || p.groupBy == "month"
	if v, ok := one("status"); ok {
		for _, s := range strings.Split(v, ",") {
			if !reStatus.MatchString(s) {
				problems = append(problems, "status must be a comma-separated list of statuses such as PAUSED,ARCHIVED (letters and _, at most 32 each)")
				break
			}
			a.status = append(a.status, s)
		}
		if timeOnly {
			problems = append(problems, "status needs groupBy account, campaign, account,day or campaign,day: it is the status of the group's account or campaign")
		}
	}
	if v, ok := one("having"); ok {
		parts := strings.Split(v, ",")
		if len(parts) > 10 {
			return append(problems, "having has more than 10 conditions")
		}
		for _, c := range parts {
			m := reCondition.FindStringSubmatch(c)
			if m == nil || !slices.Contains(svc.SummaryFields, m[1]) {
				problems = append(problems, fmt.Sprintf("having %q: a condition is field op number, field one of spend, impressions, clicks, purchases, purchaseValue, ctr, cpc, cpm, roas, op one of = != > >= < <=, number an integer or a decimal (e.g. clicks=0,impressions>0)", c))
				continue
			}
			a.having = append(a.having, [3]string{m[1], m[2], m[3]})
		}
	}
	return problems
}

func (p *params) compareProblems(values url.Values, today svc.Date) []string {
	_, hasFrom := values["compareFrom"]
	_, hasTo := values["compareTo"]
	if !hasFrom && !hasTo {
		return nil
	}
	if hasFrom != hasTo {
		return []string{"compareFrom and compareTo go together: give both or neither"}
	}
	var problems []string
	if p.groupBy != "total" && p.groupBy != "account" && p.groupBy != "campaign" {
		problems = append(problems, "compareFrom and compareTo need groupBy total, account or campaign: days, weeks and months have no counterpart in another period")
	}
	for _, msg := range dateProblems(url.Values{"from": values["compareFrom"], "to": values["compareTo"]}, today) {
		switch {
		case msg == "from must not be after to":
			msg = "compareFrom must not be after compareTo"
		case strings.HasPrefix(msg, "from "):
			msg = "compareFrom " + strings.TrimPrefix(msg, "from ")
		case strings.HasPrefix(msg, "to "):
			msg = "compareTo " + strings.TrimPrefix(msg, "to ")
		default:
			msg = "compare period: " + strings.TrimPrefix(msg, "the ")
		}
		problems = append(problems, msg)
	}
	if len(problems) == 0 {
		p.answers.compareFrom, _ = svc.ParseDate(firstOf(values["compareFrom"]))
		p.answers.compareTo, _ = svc.ParseDate(firstOf(values["compareTo"]))
	}
	return problems
}

// note is the summary's addition to meta.note.
func (a answers) note() string {
	if a.sort != "" {
		return " Ranked within each currency: amounts in different currencies are never added or ranked against each other."
	}
	return ""
}

// answer names, compares, filters and ranks the groups of summarize.
func (a *API) answer(groups, rows []Row, p params) ([]Row, error) {
	gs, err := decodeGroups(groups)
	if err != nil {
		return nil, err
	}
	o := p.answers
	if !o.compareFrom.IsZero() {
		var in []Row
		for _, r := range rows {
			var x struct{ Date *svc.Date }
			if json.Unmarshal([]byte(r.JSON), &x) == nil && x.Date != nil && !x.Date.Before(o.compareFrom) && !o.compareTo.Before(*x.Date) {
				in = append(in, r)
			}
		}
		prevRows, err := summarize(in, p.level, p.groupBy)
		if err != nil {
			return nil, err
		}
		prev, err := decodeGroups(prevRows)
		if err != nil {
			return nil, err
		}
		gs = pairPeriods(gs, prev)
	}
	a.nameGroups(gs)
	kept := gs[:0]
	for _, g := range gs {
		if (len(o.status) == 0 || g.Status != nil && slices.Contains(o.status, *g.Status)) && meets(&g, o.having) {
			kept = append(kept, g)
		}
	}
	if o.sort != "" {
		kept = rank(kept, o.sort, o.desc, o.top)
	}
	out := make([]Row, len(kept))
	for i, g := range kept {
		b, err := json.Marshal(g)
		if err != nil {
			return nil, err
		}
		out[i] = Row{AccountID: deref(g.AccountID), JSON: string(b)}
	}
	return out, nil
}

func decodeGroups(rows []Row) ([]svc.InsightSummaryGroup, error) {
	out := make([]svc.InsightSummaryGroup, len(rows))
	for i, r := range rows {
		if err := json.Unmarshal([]byte(r.JSON), &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func groupKey(g *svc.InsightSummaryGroup) string {
	return g.Currency + "\x00" + deref(g.AccountID) + "\x00" + deref(g.CampaignID)
}

// pairPeriods sets Previous and Change on every group, by key; a key of
// one period only gets a zero group for the other.
func pairPeriods(cur, prev []svc.InsightSummaryGroup) []svc.InsightSummaryGroup {
	zero := func(g svc.InsightSummaryGroup) svc.InsightSummaryGroup {
		return svc.InsightSummaryGroup{Level: g.Level, Currency: g.Currency, AccountID: g.AccountID, CampaignID: g.CampaignID, Spend: "0"}
	}
	byKey := map[string]svc.InsightSummaryGroup{}
	for _, g := range prev {
		byKey[groupKey(&g)] = g
	}
	seen := map[string]bool{}
	var out []svc.InsightSummaryGroup
	add := func(g, p svc.InsightSummaryGroup) {
		g.Previous = &svc.SummaryFigures{Rows: p.Rows, Days: p.Days, Spend: p.Spend, Impressions: p.Impressions, Clicks: p.Clicks,
			CTR: p.CTR, CPC: p.CPC, CPM: p.CPM, PurchaseRows: p.PurchaseRows, Purchases: p.Purchases,
			PurchaseValueRows: p.PurchaseValueRows, PurchaseValue: p.PurchaseValue, ROAS: p.ROAS}
		g.Change = changes(&g, &p)
		out = append(out, g)
	}
	for _, g := range cur {
		p, ok := byKey[groupKey(&g)]
		if !ok {
			p = zero(g)
		}
		seen[groupKey(&g)] = true
		add(g, p)
	}
	for _, p := range prev {
		if !seen[groupKey(&p)] {
			add(zero(p), p)
		}
	}
	slices.SortStableFunc(out, func(a, b svc.InsightSummaryGroup) int { return strings.Compare(groupKey(&a), groupKey(&b)) })
	return out
}

// figure is a figure of g as shown, nil where null.
func figure(g *svc.InsightSummaryGroup, name string) *big.Rat {
	dec := func(d *svc.Decimal) *big.Rat {
		if d == nil {
			return nil
		}
		r, _ := new(big.Rat).SetString(d.String())
		return r
	}
	switch name {
	case "spend":
		return dec(&g.Spend)
	case "impressions":
		return new(big.Rat).SetInt64(g.Impressions)
	case "clicks":
		return new(big.Rat).SetInt64(g.Clicks)
	case "purchases":
		return dec(g.Purchases)
	case "purchaseValue":
		return dec(g.PurchaseValue)
	case "ctr":
		return dec(g.CTR)
	case "cpc":
		return dec(g.CPC)
	case "cpm":
		return dec(g.CPM)
	case "roas":
		return dec(g.ROAS)
	}
	return nil
}

func changes(g, p *svc.InsightSummaryGroup) *svc.SummaryChange {
	c := &svc.SummaryChange{}
	targets := [][2]**svc.Decimal{{&c.Spend, &c.SpendRelative}, {&c.Impressions, &c.ImpressionsRelative}, {&c.Clicks, &c.ClicksRelative},
		{&c.Purchases, &c.PurchasesRelative}, {&c.PurchaseValue, &c.PurchaseValueRelative}, {&c.CTR, &c.CTRRelative},
		{&c.CPC, &c.CPCRelative}, {&c.CPM, &c.CPMRelative}, {&c.ROAS, &c.ROASRelative}}
	for i, f := range svc.SummaryFields {
		cur, was := figure(g, f), figure(p, f)
		if cur == nil || was == nil {
			continue
		}
		d := new(big.Rat).Sub(cur, was)
		abs := svc.Decimal(exact(d))
		*targets[i][0] = &abs
		if was.Sign() != 0 {
			rel := svc.Decimal(new(big.Rat).Quo(d, new(big.Rat).Abs(was)).FloatString(4))
			*targets[i][1] = &rel
		}
	}
	return c
}

// exact writes r in plain decimals with the fewest places.
func exact(r *big.Rat) string {
	for n := 0; n < 18; n++ {
		if new(big.Rat).Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil))).IsInt() {
			return r.FloatString(n)
		}
	}
	return r.FloatString(18)
}

func meets(g *svc.InsightSummaryGroup, conds [][3]string) bool {
	for _, c := range conds {
		v := figure(g, c[0])
		if v == nil {
			return false
		}
		want, _ := new(big.Rat).SetString(c[2])
		k := v.Cmp(want)
		ok := map[string]bool{"=": k == 0, "!=": k != 0, ">": k > 0, ">=": k >= 0, "<": k < 0, "<=": k <= 0}[c[1]]
		if !ok {
			return false
		}
	}
	return true
}

// rank orders by currency, then the figure (nulls last), then the API's
// order, and keeps top per currency.
func rank(gs []svc.InsightSummaryGroup, field string, desc bool, top int) []svc.InsightSummaryGroup {
	slices.SortStableFunc(gs, func(a, b svc.InsightSummaryGroup) int {
		if c := strings.Compare(a.Currency, b.Currency); c != 0 {
			return c
		}
		x, y := figure(&a, field), figure(&b, field)
		switch {
		case x == nil && y == nil:
			return 0
		case x == nil:
			return 1
		case y == nil:
			return -1
		case desc:
			return y.Cmp(x)
		}
		return x.Cmp(y)
	})
	var out []svc.InsightSummaryGroup
	n := 0
	for i, g := range gs {
		if i > 0 && g.Currency != gs[i-1].Currency {
			n = 0
		}
		if top == 0 || n < top {
			out = append(out, g)
		}
		n++
	}
	return out
}

// nameGroups sets the names and status from Accounts and Campaigns.
func (a *API) nameGroups(gs []svc.InsightSummaryGroup) {
	type named struct {
		ID          string `json:"id"`
		AccountName string `json:"accountName"`
		Name        string `json:"name"`
		Status      string `json:"status"`
		IsActive    bool   `json:"isActive"`
	}
	accounts, campaigns := map[string]named{}, map[string]named{}
	for _, r := range a.Accounts {
		var n named
		if json.Unmarshal([]byte(r.JSON), &n) == nil {
			n.Status = map[bool]string{true: "ACTIVE", false: "INACTIVE"}[n.IsActive]
			accounts[n.ID] = n
		}
	}
	for _, r := range a.Campaigns {
		var n named
		if json.Unmarshal([]byte(r.JSON), &n) == nil {
			campaigns[n.ID] = n
		}
	}
	// As svc-api: a group with an account always carries accountName and
	// status, one with a campaign campaignName ("" for an unknown id).
	for i := range gs {
		g := &gs[i]
		if g.AccountID != nil {
			n := accounts[*g.AccountID]
			g.AccountName, g.Status = &n.AccountName, &n.Status
		}
		if g.CampaignID != nil {
			n, ok := campaigns[*g.CampaignID]
			g.CampaignName = &n.Name
			if ok {
				g.Status = &n.Status
			}
		}
	}
}
