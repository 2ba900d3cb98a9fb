package svc

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestValidationBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	// testToday is 2026-11-20.
	tests := []struct {
		name string
		opts InsightListOptions
		want []string
	}{
		{"limit too big", InsightListOptions{ListOptions: ListOptions{Limit: 101}}, []string{"limit must be between 1 and 100, not 101"}},
		{"negative limit", InsightListOptions{ListOptions: ListOptions{Limit: -1}}, []string{"limit must be between 1 and 100, not -1"}},
		{"offset too big", InsightListOptions{ListOptions: ListOptions{Offset: 10001}}, []string{"offset must be between 0 and 10000, not 10001"}},
		{"negative offset", InsightListOptions{ListOptions: ListOptions{Offset: -5}}, []string{"offset must be between 0 and 10000, not -5"}},
		{"accountId pattern", InsightListOptions{ListOptions: ListOptions{AccountID: "acc 1"}}, []string{"accountId must be"}},
		{"accountId too long", InsightListOptions{ListOptions: ListOptions{AccountID: strings.Repeat("a", 129)}}, []string{"accountId must be"}},
		{"future to", InsightListOptions{To: Date{2026, 11, 21}}, []string{"to 2026-11-21 is in the future (today is 2026-11-20 UTC)"}},
		{"future from", InsightListOptions{From: Date{2026, 12, 1}}, []string{"from 2026-12-01 is in the future"}},
		{"from after to", InsightListOptions{From: Date{2026, 11, 10}, To: Date{2026, 11, 9}}, []string{"from 2026-11-10 is after to 2026-11-09"}},
		{"91 days", InsightListOptions{From: Date{2026, 8, 22}, To: Date{2026, 11, 20}}, []string{"spans 91 days; at most 90"}},
		{"only from, 91 days to today", InsightListOptions{From: Date{2026, 8, 22}}, []string{"spans 91 days"}},
		{"invalid date", InsightListOptions{From: Date{2026, 2, 30}}, []string{"from is not a valid date"}},
		{
			"every problem at once",
			InsightListOptions{ListOptions: ListOptions{Limit: 500, Offset: -1, AccountID: "!"}, To: Date{2027, 1, 1}},
			[]string{"limit", "offset", "accountId", "to 2027-01-01 is in the future"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newFakeClient(t, func(r *http.Request) (*http.Response, error) {
				t.Errorf("a request was made: %s", r.URL)
				return nil, errors.New("no request expected")
			})
			check := func(what string, err error) {
				t.Helper()
				verr, ok := errors.AsType[*ValidationError](err)
				if !ok {
					t.Fatalf("%s error = %v, want a *ValidationError", what, err)
				}
				if len(verr.Problems) != len(tt.want) {
					t.Errorf("%s problems = %q, want %d", what, verr.Problems, len(tt.want))
				}
				for i, w := range tt.want {
					if i < len(verr.Problems) && !strings.Contains(verr.Problems[i], w) {
						t.Errorf("%s problem %d = %q, want it to contain %q", what, i, verr.Problems[i], w)
					}
				}
				if !strings.HasPrefix(err.Error(), "svc: invalid request, no request was made: ") {
					t.Errorf("Error() = %q", err)
				}
			}
			_, err := c.Insights.List(t.Context(), &tt.opts)
			check("List", err)
			var errs []error
			for _, err := range c.Insights.All(t.Context(), &tt.opts) {
				errs = append(errs, err)
			}
			if len(errs) != 1 {
				t.Fatalf("All yielded %d values, want one error", len(errs))
			}
			check("All", errs[0])
		})
	}
}

func TestValidationOfAccountAndCampaignOptions(t *testing.T) {
	t.Parallel()
	c := newFakeClient(t, func(r *http.Request) (*http.Response, error) {
		t.Errorf("a request was made: %s", r.URL)
		return nil, errors.New("no request expected")
	})
	if _, err := c.Accounts.List(t.Context(), &AccountListOptions{ListOptions{Limit: 101}}); !isValidation(err) {
		t.Errorf("Accounts.List = %v, want a *ValidationError", err)
	}
	if _, err := c.Campaigns.List(t.Context(), &CampaignListOptions{ListOptions{AccountID: "a/b"}}); !isValidation(err) {
		t.Errorf("Campaigns.List = %v, want a *ValidationError", err)
	}
}

func isValidation(err error) bool {
	_, ok := errors.AsType[*ValidationError](err)
	return ok
}

func TestValidDatesAreSentAsGiven(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts InsightListOptions
		want url.Values
	}{
		{"nothing set", InsightListOptions{}, url.Values{}},
		{"90 days", InsightListOptions{From: Date{2026, 8, 23}, To: Date{2026, 11, 20}},
			url.Values{"from": {"2026-08-23"}, "to": {"2026-11-20"}}},
		{"only from", InsightListOptions{From: Date{2026, 8, 23}}, url.Values{"from": {"2026-08-23"}}},
		{"only to, far back", InsightListOptions{To: Date{2025, 1, 1}}, url.Values{"to": {"2025-01-01"}}},
		{"one day", InsightListOptions{From: Date{2026, 11, 20}, To: Date{2026, 11, 20}},
			url.Values{"from": {"2026-11-20"}, "to": {"2026-11-20"}}},
		{"every option", InsightListOptions{ListOptions: ListOptions{Limit: 100, Offset: 10000, AccountID: "acc_1-A"}},
			url.Values{"limit": {"100"}, "offset": {"10000"}, "accountId": {"acc_1-A"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got url.Values
			c := newFakeClient(t, func(r *http.Request) (*http.Response, error) {
				got = r.URL.Query()
				return response(r, http.StatusOK, nil, `{"data":[],"meta":{}}`), nil
			})
			if _, err := c.Insights.List(t.Context(), &tt.opts); err != nil {
				t.Fatalf("List: %v", err)
			}
			for k := range tt.want {
				if !slices.Equal(got[k], tt.want[k]) {
					t.Errorf("%s = %q, want %q", k, got[k], tt.want[k])
				}
			}
			if len(got) != len(tt.want) {
				t.Errorf("query = %v, want %v", got, tt.want)
			}
		})
	}
}
