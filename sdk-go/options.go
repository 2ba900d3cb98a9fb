package svc

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
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
// From and To are UTC days; [InsightDates] says which ranges the service
// accepts and what a zero From or To means.
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
	return dateQuery(q, problems, o.From, o.To, today)
}

// dateQuery checks the insight window from..to with InsightDates, adds it to
// q, and returns q, or a *ValidationError with every problem (those found
// before, then the window's).
func dateQuery(q url.Values, problems []string, from, to, today Date) (url.Values, error) {
	var causes []error
	if _, err := InsightDates(from, to, today); err != nil {
		dr := err.(*DateRangeError)
		problems = append(problems, dr.Problems...)
		causes = append(causes, dr)
	}
	if len(problems) > 0 {
		return nil, &ValidationError{Problems: problems, causes: causes}
	}
	if !from.IsZero() {
		q.Set("from", from.String())
	}
	if !to.IsZero() {
		q.Set("to", to.String())
	}
	return q, nil
}

// DateRange is a range of UTC days, both included.
type DateRange struct {
	From, To Date
}

// Days is the number of days of the range, both ends included.
func (r DateRange) Days() int { return r.From.daysUntil(r.To) + 1 }

// String returns the range as "YYYY-MM-DD..YYYY-MM-DD".
func (r DateRange) String() string { return r.From.String() + ".." + r.To.String() }

// The reasons InsightDates refuses a range, matched with [errors.Is] on its
// error, and on the error of Insights.List and Insights.All.
var (
	// ErrInvalidDate: a date that does not exist, such as 2026-02-30.
	ErrInvalidDate = errors.New("invalid date")
	// ErrFutureDate: from or to is after today (UTC).
	ErrFutureDate = errors.New("date in the future")
	// ErrDatesReversed: from is after to.
	ErrDatesReversed = errors.New("from after to")
	// ErrRangeTooLong: the range spans more than MaxInsightDays days.
	ErrRangeTooLong = errors.New("date range too long")
)

// DateRangeError is the error of [InsightDates]: one sentence per problem,
// and the reasons (ErrInvalidDate, ErrFutureDate, ErrDatesReversed,
// ErrRangeTooLong) for [errors.Is].
type DateRangeError struct {
	// Problems lists every problem found, one sentence each.
	Problems []string
	// Range is the range the defaults resolve to when the error is
	// ErrDatesReversed or ErrRangeTooLong; it is zero otherwise.
	Range   DateRange
	reasons []error
}

// Error returns all the problems on one line.
func (e *DateRangeError) Error() string {
	return "svc: invalid date range: " + strings.Join(e.Problems, "; ")
}

// Unwrap returns the reasons, for errors.Is.
func (e *DateRangeError) Unwrap() []error { return e.reasons }

func (e *DateRangeError) add(reason error, format string, args ...any) {
	e.Problems = append(e.Problems, fmt.Sprintf(format, args...))
	if !slices.Contains(e.reasons, reason) {
		e.reasons = append(e.reasons, reason)
	}
}

// InsightDates is the insight date window, the one place of the SDK (and
// of svc-cli and svc-mcp, which call it) that knows the rule the service
// applies to from and to (SPEC §4, DESIGN §4): UTC days, both included, at
// most MaxInsightDays (90) days, none after today. A zero from or to takes
// the service's default: neither given, the DefaultInsightDays (30) days
// ending today; only from, from..today; only to, the 30 days ending on to.
//
// today is the current UTC day, DateOf(time.Now().UTC()) outside tests. It
// returns the range the service reads, or a *DateRangeError listing every
// problem. Insights.List and Insights.All check their options with it
// before any request.
func InsightDates(from, to, today Date) (DateRange, error) {
	e := &DateRangeError{}
	for _, d := range []struct {
		name string
		date Date
	}{{"from", from}, {"to", to}} {
		switch {
		case d.date.IsZero():
		case !d.date.IsValid():
			e.add(ErrInvalidDate, "%s is not a valid date", d.name)
		case d.date.After(today):
			e.add(ErrFutureDate, "%s %s is in the future (today is %s UTC)", d.name, d.date, today)
		}
	}
	if len(e.Problems) > 0 {
		return DateRange{}, e
	}
	if to.IsZero() {
		to = today
	}
	if from.IsZero() {
		from = to.AddDays(-(DefaultInsightDays - 1))
	}
	r := DateRange{From: from, To: to}
	e.Range = r
	switch {
	case from.After(to):
		e.add(ErrDatesReversed, "from %s is after to %s", from, to)
	case r.Days() > MaxInsightDays:
		e.add(ErrRangeTooLong, "the range %s to %s spans %d days; at most %d are allowed", from, to, r.Days(), MaxInsightDays)
	}
	if len(e.Problems) > 0 {
		return DateRange{}, e
	}
	return r, nil
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
