package query

import (
	"slices"
	"strings"
	"testing"
	"time"
)

var now = time.Date(2026, 11, 21, 15, 4, 5, 0, time.UTC)

func TestParseDefaults(t *testing.T) {
	p, probs := Parse("", Insights, now)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	want := Params{Limit: 50, Offset: 0, From: "2026-10-23", To: "2026-11-21"}
	if p != want {
		t.Errorf("%+v, want %+v", p, want)
	}
	p, _ = Parse("from=2026-11-01", Insights, now)
	if p.From != "2026-11-01" || p.To != "2026-11-21" {
		t.Errorf("only from: %+v", p)
	}
	p, _ = Parse("to=2026-11-10", Insights, now)
	if p.From != "2026-10-12" || p.To != "2026-11-10" {
		t.Errorf("only to: %+v", p)
	}
	p, probs = Parse("limit=100&offset=10000&accountId=acc_1-X", Accounts, now)
	if len(probs) > 0 || p.Limit != 100 || p.Offset != 10000 || p.AccountID != "acc_1-X" || p.From != "" {
		t.Errorf("%+v %v", p, probs)
	}
	if _, probs := Parse("from=2026-08-24&to=2026-11-21", Insights, now); len(probs) != 0 {
		t.Errorf("90 days: %v", probs)
	}
	if _, probs := Parse("from=2026-08-23&to=2026-11-21", Insights, now); len(probs) != 1 {
		t.Errorf("91 days: %v", probs)
	}
}

func TestInspect(t *testing.T) {
	for q, want := range map[string]Rejection{
		"":                        None,
		"limit=5":                 None,
		"KEY=x":                   CredentialInQuery,
		"access%5Ftoken=x":        CredentialInQuery,
		"x=SVC_LIVE_abc":          CredentialInQuery,
		"x=%73vc_live_abc":        CredentialInQuery,
		"Authorization=x&orgId=1": CredentialInQuery,
		"orgId=1":                 OrgOverride,
		"Organization=1":          OrgOverride,
		"org_id=%zz":              OrgOverride,
		"keys=1":                  None,
	} {
		if got := Inspect(q); got != want {
			t.Errorf("Inspect(%q) = %q, want %q", q, got, want)
		}
	}
}

// FuzzParse: Parse never panics, reports problems as non-empty strings, and
// whatever it accepts is within the documented bounds.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "limit=1", "limit=100&offset=10000", "offset=-1", "limit=1&limit=2",
		"from=2026-11-01&to=2026-11-21", "from=2026-02-30", "to=2030-01-01", "accountId=a%20b", "%zz",
		"a=1;b=2", "from=2026-08-23", "limit=+5", "limit=0x10", "accountId=" + strings.Repeat("a", 129)} {
		f.Add(s, uint8(2))
	}
	f.Fuzz(func(t *testing.T, raw string, ep uint8) {
		e := Endpoint(ep % 3)
		p, probs := Parse(raw, e, now)
		for _, m := range probs {
			if m == "" {
				t.Fatal("empty problem")
			}
		}
		_ = Inspect(raw)
		if len(probs) > 0 {
			return
		}
		if p.Limit < 1 || p.Limit > MaxLimit || p.Offset < 0 || p.Offset > MaxOffset {
			t.Fatalf("accepted out of range %+v", p)
		}
		if p.AccountID != "" && !reAccountID.MatchString(p.AccountID) {
			t.Fatalf("accepted accountId %q", p.AccountID)
		}
		if e == Insights {
			from, err1 := time.Parse(time.DateOnly, p.From)
			to, err2 := time.Parse(time.DateOnly, p.To)
			if err1 != nil || err2 != nil || from.After(to) || to.After(now) || to.Sub(from) >= MaxRangeDays*24*time.Hour {
				t.Fatalf("accepted dates %+v", p)
			}
		} else if p.From != "" || p.To != "" {
			t.Fatalf("dates on %d", e)
		}
		if slices.Contains([]Endpoint{Accounts, Campaigns}, e) && strings.Contains(raw, "from=") && len(probs) == 0 {
			// "from" is unknown outside insights, unless it is part of another name.
			for _, pair := range strings.Split(raw, "&") {
				if strings.HasPrefix(pair, "from=") {
					t.Fatalf("accepted from on %d: %q", e, raw)
				}
			}
		}
	})
}
