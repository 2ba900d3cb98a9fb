package svc

import (
	"fmt"
	"net/url"
	"strconv"
)

// Limits of the list options, checked before any request.
const (
	// MaxLimit is the largest page size; the server's default is 50.
	MaxLimit = 100
	// MaxOffset is the largest offset.
	MaxOffset = 10000
	// MaxInsightDays is the longest insight date range, both ends included.
	MaxInsightDays = 90
	// DefaultInsightDays is the length of the insight date range when only
	// to is given (and of the server's default range).
	DefaultInsightDays = 30
)

// ListOptions are the paging and filter options of every list endpoint. A
// zero field is not sent, so the server's default applies: Limit 0 means the
// server's page size (50), Offset 0 is the first row, an empty AccountID
// means every account of the key's organization.
type ListOptions struct {
	// Limit is the page size, 1 to 100.
	Limit int
	// Offset is the number of rows to skip, 0 to 10000.
	Offset int
	// AccountID keeps only the rows of one account (Account.ID). It
	// matches ^[a-zA-Z0-9_-]{1,128}$.
	AccountID string
}

// AccountListOptions are the options of Accounts.List and Accounts.All.
type AccountListOptions struct {
	ListOptions
}

// CampaignListOptions are the options of Campaigns.List and Campaigns.All.
type CampaignListOptions struct {
	ListOptions
}

// InsightListOptions are the options of Insights.List and Insights.All.
// From and To are UTC days, both included, at most 90 days apart and not in
// the future. Neither set: the last 30 days up to today (the server's
// default). Only From: up to today. Only To: the 30 days ending on To.
type InsightListOptions struct {
	ListOptions
	From Date
	To   Date
}

// lister is implemented by pointers to the option types.
type lister interface {
	listOptions() *ListOptions
	// query validates the options and returns the query string; today is
	// the current UTC day.
	query(today Date) (url.Values, error)
}

func (o *ListOptions) listOptions() *ListOptions { return o }

func (o *ListOptions) query(Date) (url.Values, error) {
	q, problems := o.values()
	if len(problems) > 0 {
		return nil, &ValidationError{Problems: problems}
	}
	return q, nil
}

func (o *ListOptions) values() (url.Values, []string) {
	q := url.Values{}
	var problems []string
	if o.Limit != 0 {
		if o.Limit < 1 || o.Limit > MaxLimit {
			problems = append(problems, fmt.Sprintf("limit must be between 1 and %d, not %d", MaxLimit, o.Limit))
		}
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	if o.Offset != 0 {
		if o.Offset < 0 || o.Offset > MaxOffset {
			problems = append(problems, fmt.Sprintf("offset must be between 0 and %d, not %d", MaxOffset, o.Offset))
		}
		q.Set("offset", strconv.Itoa(o.Offset))
	}
	if o.AccountID != "" {
		if !validAccountID(o.AccountID) {
			problems = append(problems, "accountId must be 1 to 128 characters among A-Z, a-z, 0-9, _ and -")
		}
		q.Set("accountId", o.AccountID)
	}
	return q, problems
}

func (o *InsightListOptions) query(today Date) (url.Values, error) {
	q, problems := o.values()
	problems = append(problems, checkDates(o.From, o.To, today)...)
	if len(problems) > 0 {
		return nil, &ValidationError{Problems: problems}
	}
	if !o.From.IsZero() {
		q.Set("from", o.From.String())
	}
	if !o.To.IsZero() {
		q.Set("to", o.To.String())
	}
	return q, nil
}

// checkDates applies the server's rules to the range the server will use.
func checkDates(from, to, today Date) []string {
	if from.IsZero() && to.IsZero() {
		return nil
	}
	var problems []string
	for _, d := range []struct {
		name string
		date Date
	}{{"from", from}, {"to", to}} {
		switch {
		case d.date.IsZero():
		case !d.date.IsValid():
			problems = append(problems, fmt.Sprintf("%s is not a valid date", d.name))
		case d.date.After(today):
			problems = append(problems, fmt.Sprintf("%s %s is in the future (today is %s UTC)", d.name, d.date, today))
		}
	}
	if len(problems) > 0 {
		return problems
	}
	from, to = insightRange(from, to, today)
	switch {
	case from.After(to):
		problems = append(problems, fmt.Sprintf("from %s is after to %s", from, to))
	case from.daysUntil(to) >= MaxInsightDays:
		problems = append(problems, fmt.Sprintf("the range %s to %s spans %d days; at most %d are allowed",
			from, to, from.daysUntil(to)+1, MaxInsightDays))
	}
	return problems
}

// insightRange is the range the server uses for from and to (DESIGN §4):
// neither set, the last 30 days up to today; only from, up to today; only
// to, the 30 days ending on to. It is the SDK's one copy of that rule.
func insightRange(from, to, today Date) (Date, Date) {
	if to.IsZero() {
		to = today
	}
	if from.IsZero() {
		from = to.AddDays(-(DefaultInsightDays - 1))
	}
	return from, to
}

func validAccountID(s string) bool {
	if len(s) < 1 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
