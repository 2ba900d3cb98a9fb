// Package query parses and validates the query string of the list endpoints
// (SPEC §4, DESIGN §4) and recognises credentials and organization overrides
// in a request (DESIGN §3 step 2). It is pure: no I/O, fuzzed.
package query

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Endpoint is one of the list endpoints.
type Endpoint int

// The list endpoints.
const (
	Accounts Endpoint = iota
	Campaigns
	Insights
)

// Limits of SPEC §4 and §8.
const (
	DefaultLimit  = 50
	MaxLimit      = 100
	MaxOffset     = 10000
	DefaultDays   = 30
	MaxRangeDays  = 90
	maxValueBytes = 256
)

// Params is a validated query.
type Params struct {
	Limit     int
	Offset    int
	AccountID string // empty: every account of the organization
	From, To  string // YYYY-MM-DD, inclusive (insights only)
}

var reAccountID = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)

func allowed(ep Endpoint) []string {
	if ep == Insights {
		return []string{"limit", "offset", "accountId", "from", "to"}
	}
	return []string{"limit", "offset", "accountId"}
}

// Parse validates rawQuery for ep, with today taken from now (UTC). It
// returns every problem found, in a stable order; Params is meaningful only
// when there is none.
func Parse(rawQuery string, ep Endpoint, now time.Time) (Params, []string) {
	p := Params{Limit: DefaultLimit}
	var problems []string
	values, err := url.ParseQuery(rawQuery)
	if err != nil {
		problems = append(problems, "the query string is malformed (bad percent-encoding or a semicolon)")
	}
	names := make([]string, 0, len(values))
	for k := range values {
		names = append(names, k)
	}
	slices.Sort(names)
	known := allowed(ep)
	for _, k := range names {
		if !slices.Contains(known, k) {
			problems = append(problems, fmt.Sprintf("unknown query parameter %s (allowed: %s)", quoteName(k), strings.Join(known, ", ")))
			continue
		}
		if len(values[k]) > 1 {
			problems = append(problems, fmt.Sprintf("query parameter %s is repeated; give it once", k))
		}
	}
	get := func(k string) (string, bool) {
		v, ok := values[k]
		if !ok || len(v) != 1 {
			return "", false
		}
		return v[0], true
	}
	if v, ok := get("limit"); ok {
		n, msg := integer("limit", v, 1, MaxLimit)
		if msg != "" {
			problems = append(problems, msg)
		}
		p.Limit = n
	}
	if v, ok := get("offset"); ok {
		n, msg := integer("offset", v, 0, MaxOffset)
		if msg != "" {
			problems = append(problems, msg)
		}
		p.Offset = n
	}
	if v, ok := get("accountId"); ok {
		if !reAccountID.MatchString(v) {
			problems = append(problems, "accountId must match ^[a-zA-Z0-9_-]{1,128}$")
		}
		p.AccountID = v
	}
	if ep == Insights {
		problems = dates(&p, values, now, problems)
	}
	return p, problems
}

func integer(name, v string, lo, hi int) (int, string) {
	if len(v) > 12 {
		return 0, fmt.Sprintf("%s must be an integer between %d and %d", name, lo, hi)
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Sprintf("%s must be an integer between %d and %d", name, lo, hi)
	}
	if n < lo || n > hi {
		return 0, fmt.Sprintf("%s must be between %d and %d, got %d", name, lo, hi, n)
	}
	return n, ""
}

func dates(p *Params, values url.Values, now time.Time, problems []string) []string {
	today := now.UTC().Truncate(24 * time.Hour)
	parse := func(name string) (time.Time, bool, bool) { // value, given, valid
		v, ok := values[name]
		if !ok {
			return time.Time{}, false, true
		}
		if len(v) != 1 {
			return time.Time{}, true, false // repeated: reported already
		}
		d, err := time.Parse(time.DateOnly, v[0])
		if err != nil || d.Format(time.DateOnly) != v[0] {
			problems = append(problems, fmt.Sprintf("%s must be a date YYYY-MM-DD (UTC)", name))
			return time.Time{}, true, false
		}
		if d.After(today) {
			problems = append(problems, fmt.Sprintf("%s must not be in the future (today is %s UTC)", name, today.Format(time.DateOnly)))
			return d, true, false
		}
		return d, true, true
	}
	from, hasFrom, okFrom := parse("from")
	to, hasTo, okTo := parse("to")
	if !okFrom || !okTo {
		return problems
	}
	switch {
	case !hasFrom && !hasTo:
		to = today
		from = today.AddDate(0, 0, -(DefaultDays - 1))
	case !hasTo:
		to = today
	case !hasFrom:
		from = to.AddDate(0, 0, -(DefaultDays - 1))
	}
	if from.After(to) {
		return append(problems, "from must not be after to")
	}
	if days := int(to.Sub(from).Hours()/24) + 1; days > MaxRangeDays {
		return append(problems, fmt.Sprintf("the range from %s to %s covers %d days; at most %d are allowed",
			from.Format(time.DateOnly), to.Format(time.DateOnly), days, MaxRangeDays))
	}
	p.From, p.To = from.Format(time.DateOnly), to.Format(time.DateOnly)
	return problems
}

// quoteName quotes a parameter name for a message, shortened.
func quoteName(k string) string {
	if len(k) > 64 {
		k = k[:64] + "…"
	}
	return strconv.Quote(k)
}

// credentialNames are query parameter names that carry a credential.
var credentialNames = []string{"key", "api_key", "apikey", "access_token", "accesstoken", "token",
	"authorization", "bearer", "secret", "password"}

// orgNames are query parameter names that try to choose the organization.
var orgNames = []string{"organizationid", "orgid", "organization_id", "org_id", "org", "organization"}

// OrgHeaders are request headers that try to choose the organization.
var OrgHeaders = []string{"X-Organization-Id", "X-Org-Id", "X-Organization"}

// KeyMarker is the prefix of every developer key; a query value holding it
// is a credential whatever its parameter's name.
const KeyMarker = "svc_live_"

// Rejection says why Inspect refuses a query string: "" for none.
type Rejection string

// The reasons of Inspect.
const (
	None              Rejection = ""
	CredentialInQuery Rejection = "credential"
	OrgOverride       Rejection = "organization"
)

// Inspect looks for credentials and organization overrides in rawQuery
// (DESIGN §3 step 2). It splits leniently, so that a malformed pair cannot
// hide a credential from it. A credential wins over an override.
func Inspect(rawQuery string) Rejection {
	if rawQuery == "" {
		return None
	}
	if containsFold(rawQuery, KeyMarker) {
		return CredentialInQuery
	}
	verdict := None
	for pair := range strings.SplitSeq(rawQuery, "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		k, v = unescape(k), unescape(v)
		lk := strings.ToLower(strings.TrimSpace(k))
		if slices.Contains(credentialNames, lk) || containsFold(v, KeyMarker) || containsFold(k, KeyMarker) {
			return CredentialInQuery
		}
		if slices.Contains(orgNames, lk) {
			verdict = OrgOverride
		}
	}
	return verdict
}

func unescape(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}

func containsFold(s, sub string) bool {
	if len(s) < len(sub) {
		return false
	}
	return strings.Contains(strings.ToLower(s), sub)
}
