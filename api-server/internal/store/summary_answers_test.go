package store_test

import (
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/query"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
)

// TestSummaryArithmetic: the figures as shown, the change against a
// second period, the having conditions and the ranking within currencies.
func TestSummaryArithmetic(t *testing.T) {
	cur := store.SummaryGroup{Currency: "EUR", Spend: "30.50", Impressions: 2000, Clicks: 40,
		PurchaseRows: 2, Purchases: "3", PurchaseValueRows: 1, PurchaseValue: "61", ValueSpend: "20.00"}
	prev := store.SummaryGroup{Currency: "EUR", Spend: "25.00", Impressions: 1000, Clicks: 0}
	for f, want := range map[string]string{"spend": "61/2", "impressions": "2000", "clicks": "40", "ctr": "2",
		"cpc": "61/80", "cpm": "61/4", "purchases": "3", "purchaseValue": "61", "roas": "61/20"} {
		if got := cur.Figure(f); got == nil || got.RatString() != want {
			t.Errorf("%s = %v, want %s", f, got, want)
		}
	}
	if prev.Figure("cpc") != nil || prev.Figure("purchases") != nil || prev.Figure("roas") != nil {
		t.Errorf("null figures: %v %v %v", prev.Figure("cpc"), prev.Figure("purchases"), prev.Figure("roas"))
	}
	ch := store.FigureChanges(&cur, &prev)
	got := map[string]store.FigureChange{}
	for i, f := range query.SummaryFields {
		got[f] = ch[i]
	}
	want := map[string]store.FigureChange{
		"spend": {"5.5", "0.2200"}, "impressions": {"1000", "1.0000"}, "clicks": {"40", ""},
		"ctr": {"2", ""}, "cpc": {}, "cpm": {"-9.75", "-0.3900"}, "purchases": {}, "purchaseValue": {}, "roas": {},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changes %+v\nwant %+v", got, want)
	}
	if ch := store.FigureChanges(&prev, &cur); ch[0] != (store.FigureChange{Absolute: "-5.5", Relative: "-0.1803"}) {
		t.Errorf("negative change %+v", ch[0])
	}
	for conds, meets := range map[string]bool{"clicks=0": false, "clicks>0,impressions>=2000": true, "spend<30.5": false,
		"spend<=30.50": true, "roas!=3.05": false, "cpc>0": true, "purchases=3": true} {
		var cs []query.Condition
		_, probs := query.Parse("level=account&groupBy=account&having="+strings.ReplaceAll(conds, "=", "%3D"), query.Summary, time.Now())
		if len(probs) > 0 {
			t.Fatal(probs)
		}
		p, _ := query.Parse("level=account&groupBy=account&having="+strings.ReplaceAll(conds, "=", "%3D"), query.Summary, time.Now())
		cs = p.Options.Having
		if cur.Meets(cs) != meets {
			t.Errorf("%s: meets %v", conds, !meets)
		}
	}
	if prev.Meets([]query.Condition{{Field: "cpc", Op: "!=", Value: "1"}}) {
		t.Error("a null figure met a condition")
	}
	g := func(cur, id, spend string) store.SummaryGroup {
		return store.SummaryGroup{Currency: cur, AccountID: id, Spend: spend}
	}
	in := []store.SummaryGroup{g("JPY", "a", "90000"), g("EUR", "b", "10"), g("EUR", "c", "30"), g("JPY", "d", "500"),
		g("EUR", "e", "30"), g("USD", "f", "1")}
	ids := func(gs []store.SummaryGroup) string {
		var s []string
		for _, g := range gs {
			s = append(s, g.AccountID)
		}
		return strings.Join(s, ",")
	}
	if got := ids(store.Rank(slices.Clone(in), "spend", true, 2)); got != "c,e,a,d,f" {
		t.Errorf("top 2 by -spend per currency: %s", got)
	}
	if got := ids(store.Rank(slices.Clone(in), "spend", false, 0)); got != "b,c,e,d,a,f" {
		t.Errorf("by spend: %s", got)
	}
	if got := store.Decimal(big.NewRat(-1, 8)); got != "-0.125" {
		t.Errorf("Decimal %s", got)
	}
}

// TestSummaryAnswersDialects: on both dialects, the answers (sort and top,
// the second period, status and having, names) equal an oracle computed in
// the test from the plain groups, and PostgreSQL and SQLite agree.
func TestSummaryAnswersDialects(t *testing.T) {
	today := time.Now().UTC()
	day := func(n int) string { return today.AddDate(0, 0, -n).Format(time.DateOnly) }
	results := map[string][]store.SummaryGroup{}
	for _, b := range []dbtest.Backend{dbtest.Postgres(t), dbtest.SQLite(t)} {
		ctx := t.Context()
		testenv.Seed(t, b.DB, today)
		for _, q := range []string{`UPDATE campaigns SET status = 'PAUSED' WHERE id = 'cmp_a2'`,
			`UPDATE ad_accounts SET account_name = 'Acme ' || id WHERE organization_id = 'org_a'`} {
			if _, err := b.DB.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		st, err := store.New(ctx, b.Handle)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		plain := func(from, to, groupBy string) []store.SummaryGroup {
			_, gs, err := st.InsightSummary(ctx, "org_a", store.SummaryParams{Limit: 10000, Level: "campaign", GroupBy: groupBy, From: from, To: to}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return gs
		}
		for i, raw := range []string{
			"groupBy=campaign&sort=-spend&top=1", "groupBy=account&sort=clicks", "groupBy=campaign&status=PAUSED",
			"groupBy=campaign&having=clicks>0,impressions>=1", "groupBy=account&compareFrom=" + day(13) + "&compareTo=" + day(7),
			"groupBy=campaign&sort=-cpc&top=1&compareFrom=" + day(60) + "&compareTo=" + day(31),
		} {
			p, probs := query.Parse("level=campaign&from="+day(6)+"&to="+day(0)+"&"+raw, query.Summary, today)
			if len(probs) > 0 {
				t.Fatalf("%s: %v", raw, probs)
			}
			sp := store.SummaryParams{Limit: 1000, Level: p.Level, GroupBy: p.GroupBy, From: p.From, To: p.To, Options: p.Options}
			m, got, err := st.InsightSummary(ctx, "org_a", sp, nil)
			if err != nil || !m.AccountFound {
				t.Fatalf("%s %s: %v", b.Name, raw, err)
			}
			want := oracle(plain(p.From, p.To, p.GroupBy), p.Options, func() []store.SummaryGroup { return plain(p.Options.CompareFrom, p.Options.CompareTo, p.GroupBy) })
			if !sameAnswers(got, want) {
				t.Errorf("%s %s:\n got %s\nwant %s", b.Name, raw, show(got), show(want))
			}
			if len(got) == 0 && i != 2 {
				t.Errorf("%s %s: no group", b.Name, raw)
			}
			for _, g := range got {
				if g.AccountName != "Acme "+g.AccountID || g.CampaignID != "" && (g.CampaignName == "" || g.Status == "") {
					t.Errorf("%s %s: names %+v", b.Name, raw, g)
				}
			}
			results[fmt.Sprint(b.Name, " ", i)] = got
		}
	}
	for k, pg := range results {
		if lite := results["sqlite"+strings.TrimPrefix(k, "postgres")]; strings.HasPrefix(k, "postgres") && !reflect.DeepEqual(pg, lite) {
			t.Errorf("%s: PostgreSQL %s\nSQLite %s", k, show(pg), show(lite))
		}
	}
}

// oracle computes the answers from plain groups, as a reader of the
// documentation would: previous by key (zeros for a missing one, keys of
// either period), filters, then per currency the sort and top.
func oracle(gs []store.SummaryGroup, o *query.SummaryOptions, before func() []store.SummaryGroup) []store.SummaryGroup {
	key := func(g store.SummaryGroup) string {
		return g.Currency + "/" + g.AccountID + "/" + g.CampaignID + "/" + g.PeriodStart
	}
	if o.CompareFrom != "" {
		prev := map[string]store.SummaryGroup{}
		for _, g := range before() {
			prev[key(g)] = g
		}
		seen := map[string]bool{}
		for i := range gs {
			p, ok := prev[key(gs[i])]
			if !ok {
				p = store.SummaryGroup{Currency: gs[i].Currency, AccountID: gs[i].AccountID, CampaignID: gs[i].CampaignID, Spend: "0"}
			}
			gs[i].Previous, seen[key(gs[i])] = &p, true
		}
		for k, p := range prev {
			if !seen[k] {
				g := store.SummaryGroup{Currency: p.Currency, AccountID: p.AccountID, CampaignID: p.CampaignID, Spend: "0", Previous: &p}
				gs = append(gs, g)
			}
		}
	}
	var kept []store.SummaryGroup
	for _, g := range gs {
		if len(o.Status) > 0 && !slices.Contains(o.Status, g.Status) || !g.Meets(o.Having) {
			continue
		}
		kept = append(kept, g)
	}
	slices.SortFunc(kept, func(a, b store.SummaryGroup) int { return strings.Compare(key(a), key(b)) })
	if o.Sort == "" {
		return kept
	}
	byCur := map[string][]store.SummaryGroup{}
	var curs []string
	for _, g := range kept {
		if len(byCur[g.Currency]) == 0 {
			curs = append(curs, g.Currency)
		}
		byCur[g.Currency] = append(byCur[g.Currency], g)
	}
	slices.Sort(curs)
	var out []store.SummaryGroup
	for _, c := range curs {
		list := byCur[c]
		slices.SortStableFunc(list, func(a, b store.SummaryGroup) int {
			x, y := a.Figure(o.Sort), b.Figure(o.Sort)
			switch {
			case x == nil && y == nil:
				return 0
			case x == nil:
				return 1
			case y == nil:
				return -1
			case o.Desc:
				return y.Cmp(x)
			}
			return x.Cmp(y)
		})
		if o.Top > 0 && len(list) > o.Top {
			list = list[:o.Top]
		}
		out = append(out, list...)
	}
	return out
}

// sameAnswers compares the keys, the sums and the previous sums of groups
// (the oracle has no names).
func sameAnswers(got, want []store.SummaryGroup) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g, w := got[i], want[i]
		if show([]store.SummaryGroup{g}) != show([]store.SummaryGroup{w}) {
			return false
		}
	}
	return true
}

func show(gs []store.SummaryGroup) string {
	var b strings.Builder
	for _, g := range gs {
		fmt.Fprintf(&b, "[%s %s %s %s spend %s clicks %d imp %d", g.Currency, g.AccountID, g.CampaignID, g.PeriodStart, g.Spend, g.Clicks, g.Impressions)
		if g.Previous != nil {
			fmt.Fprintf(&b, " prev %s %d %d", g.Previous.Spend, g.Previous.Clicks, g.Previous.Impressions)
		}
		b.WriteString("] ")
	}
	return b.String()
}
