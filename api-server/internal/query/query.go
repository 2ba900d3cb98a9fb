package query

import (
	"cmp"
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
	// Summary is GET /insights/summary: Insights' parameters, level and
	// groupBy (summary.go).
	Summary
	// Freshness is GET /insights/freshness: no parameter (issue 46).
	Freshness
	// Changes is GET /insights/changes: since, cursor and limit, read by
	// ParseChanges (changes.go).
	Changes
)

// Limits of SPEC §4 and §8.
const (
	DefaultLimit  = 50
	MaxLimit      = 100
	MaxOffset     = 10000
	DefaultDays   = 30
	MaxRangeDays  = 90
	maxValueBytes = 256
	// minYear and maxYear bound every date, given or computed: PostgreSQL
	// and the wire format know no year 0 (time.Parse accepts 0000).
	minYear = 1
	maxYear = 9999
)

// Params is a validated query.
type Params struct {
	Limit     int
	Offset    int
	AccountID string // empty: every account of the organization
	From, To  string // YYYY-MM-DD, inclusive (insights only)
	// Level, GroupBy and Options: Summary only (summary.go,
	// summaryopts.go); Options is nil on the other endpoints, so that
	// Params stays comparable.
	Level, GroupBy string
	Options        *SummaryOptions
	// Since and Cursor: Changes only (changes.go), opaque here.
	Since, Cursor string
}

func allowed(ep Endpoint) []string {
	switch ep {
	case Insights:
		return []string{"limit", "offset", "accountId", "from", "to"}
	case Summary:
		return []string{"limit", "offset", "accountId", "from", "to", "level", "groupBy",
			"sort", "top", "compareFrom", "compareTo", "status", "having"}
	case Freshness:
		return nil
	}
	return []string{"limit", "offset", "accountId"}
}

// Parse validates rawQuery for ep, with today taken from now (UTC). It
// returns every problem found, in a stable order; Params is meaningful only
// when there is none.
func Parse(rawQuery string, ep Endpoint, now time.Time) (Params, []string) {
	if ep == Changes {
		cp, problems := ParseChanges(rawQuery)
		return Params{Limit: cp.Limit, Since: cp.Since, Cursor: cp.Cursor}, problems
	}
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
			problems = append(problems, fmt.Sprintf("unknown query parameter %s (allowed: %s)", quoteName(k), cmp.Or(strings.Join(known, ", "), "none")))
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
		if !ValidID(v) {
			problems = append(problems, "accountId must match "+IDPattern)
		}
		p.AccountID = v
	}
	if ep == Summary {
		problems = summary(&p, values, problems)
	}
	if ep == Insights || ep == Summary {
		problems = dates(&p, values, now, problems)
	}
	if ep == Summary {
		problems = summaryOptions(&p, values, now, problems)
	}
	return p, problems
}

// integer reads a limit or an offset: plain decimal digits only, so that
// one number has one spelling (no sign, no leading zero, no "+5" from %2B5:
// issue 30, finding 10).
func integer(name, v string, lo, hi int) (int, string) {
	bad := fmt.Sprintf("%s must be an integer between %d and %d, in plain digits (no sign, no leading zero)", name, lo, hi)
	if !rePlainDigits.MatchString(v) {
		return 0, bad
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, bad
	}
	if n < lo || n > hi {
		return 0, fmt.Sprintf("%s must be between %d and %d, got %d", name, lo, hi, n)
	}
	return n, ""
}

// rePlainDigits is a number as limit and offset take it: 0, or digits
// without a leading zero, at most 12 of them.
var rePlainDigits = regexp.MustCompile(`^(0|[1-9][0-9]{0,11})$`)

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
		if d.Year() < minYear || d.Year() > maxYear {
			problems = append(problems, fmt.Sprintf("%s must be a date between 0001-01-01 and 9999-12-31", name))
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
	// Every computed date stays within years 1 to 9999 (DESIGN §4): a
	// default window that would start before 0001-01-01 starts there.
	if first := time.Date(minYear, 1, 1, 0, 0, 0, 0, time.UTC); from.Before(first) {
		from = first
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

// OrgHeader returns the name of a request header that tries to choose the
// organization or tenant ("X-Organization-Id", "Organization-Id",
// "X-Org-Id", "X-Tenant-Id", "Tenant", …), or "" if there is none: any
// header whose name holds "organization", "organisation" or "tenant", or
// "org" as a word between dashes or underscores.
func OrgHeader(h map[string][]string) string {
	for name := range h {
		if containsFold(name, "organization") || containsFold(name, "organisation") || containsFold(name, "tenant") || hasWordFold(name, "org") {
			return name
		}
	}
	return ""
}

// hasWordFold reports whether w appears in name delimited by the ends, '-' or '_'.
func hasWordFold(name, w string) bool {
	for i := 0; i+len(w) <= len(name); i++ {
		if (i == 0 || name[i-1] == '-' || name[i-1] == '_') &&
			(i+len(w) == len(name) || name[i+len(w)] == '-' || name[i+len(w)] == '_') &&
			strings.EqualFold(name[i:i+len(w)], w) {
			return true
		}
	}
	return false
}

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
// (DESIGN §3 step 2). It decides on every reading of the query a server or a
// proxy might make: the raw text, and the text decoded once, twice, … (valid
// escapes decoded, invalid ones left as they are, '+' as a space), each split
// into pairs at '&' and at ';'. A key-shaped value anywhere (KeyShaped), or a
// credential's parameter name, is a credential; a credential wins over an
// override. A query still changing after maxDecodes decodings is refused as
// a credential: the guard cannot tell what it holds.
func Inspect(rawQuery string) Rejection {
	if rawQuery == "" {
		return None
	}
	verdict := None
	s := rawQuery
	for range maxDecodes {
		if KeyShaped(s) {
			return CredentialInQuery
		}
		switch inspectPairs(s) {
		case CredentialInQuery:
			return CredentialInQuery
		case OrgOverride:
			verdict = OrgOverride
		}
		d := lenientUnescape(s)
		if d == s {
			return verdict
		}
		s = d
	}
	return CredentialInQuery
}

// maxDecodes is how many readings of a query Inspect makes: the raw text
// and three decodings. Nobody encodes a legitimate query three times.
const maxDecodes = 4

// inspectPairs splits s at '&' and ';' and looks at each pair's name.
func inspectPairs(s string) Rejection {
	verdict := None
	for len(s) > 0 {
		i := strings.IndexAny(s, "&;")
		pair := s
		if i >= 0 {
			pair, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		k, _, _ := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		if equalFoldAny(k, credentialNames) {
			return CredentialInQuery
		}
		if equalFoldAny(k, orgNames) {
			verdict = OrgOverride
		}
	}
	return verdict
}

func equalFoldAny(k string, names []string) bool {
	for _, n := range names {
		if len(n) == len(k) && strings.EqualFold(k, n) {
			return true
		}
	}
	return false
}

// lenientUnescape decodes the valid %XX escapes of s and '+' as a space,
// leaving an invalid escape as it is (url.QueryUnescape refuses the whole
// string instead, which let a pair with one bad escape hide a key). It
// returns s itself when there is nothing to decode.
func lenientUnescape(s string) string {
	if !strings.ContainsAny(s, "%+") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
		case c == '+':
			b = append(b, ' ')
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func containsFold(s, sub string) bool {
	n := len(sub)
	for i := 0; i+n <= len(s); i++ {
		if s[i]|0x20 == sub[0]|0x20 && strings.EqualFold(s[i:i+n], sub) {
			return true
		}
	}
	return false
}
