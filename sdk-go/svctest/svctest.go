// Package svctest is a test helper: a stand-in for the snapshot developer
// API (svc-api) over fixed rows, for the tests of programs built on the SDK
// (svc-cli and svc-mcp use it). It is not for production use.
//
// It answers as svc-api does for the requests it models: the same status
// codes, the error body of SPEC §7 with the same message texts, and the
// response envelope with the same meta.note. e2e (double_test.go) sends the
// same requests to it and to svc-api and fails when the two differ, and
// validates its 200 bodies against api-server/openapi.yaml.
//
// Modelled, in svc-api's order: unknown paths (404) and methods (405); the
// key (401); the scope of the endpoint (403); the query string (400 with
// every problem: unknown or repeated parameters, limit, offset, accountId,
// level and groupBy, from and to, the insight date window); an accountId
// that is not an account of the organization (404); paging by limit and
// offset with nextOffset and the offset limit. Not modelled: rate limits,
// credentials in the query string, organization overrides, key expiry
// headers, the filtering of insight rows by date (rows are returned, and
// summed, whatever their date; from and to are only checked).
//
// GET /insights/changes is answered from Insights (a first sync) and Changes
// (changes.go).
//
// GET /insights/summary (api-server/openapi.yaml, readInsightSummary) is
// answered from Insights by the rules of openapi.yaml's InsightSummaryGroup;
// e2e checks its answers against that document and against its own oracle
// (harness.ExpectedSummary). Its messages for level and groupBy
// (MessageLevelRequired and the others) are the texts svc-api is to use.
package svctest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	svc "github.com/adsnap/svc/sdk-go"
	"github.com/adsnap/svc/sdk-go/internal/keyformat"
)

// Texts of svc-api (api-server/internal/server), checked against it by e2e.
const (
	// Note is meta.note of every page.
	Note = "Stored snapshot: the data may be stale; no live request to the advertising platform was made."
	// MessageUnauthorized is the message of a 401.
	MessageUnauthorized = "missing, invalid, revoked or expired API key; send a valid key in the Authorization header (Bearer scheme)"
	// MessageIssuerDemoted is the message of the 403 for a key whose issuer
	// is no longer an owner or administrator.
	MessageIssuerDemoted = "the key's issuer is no longer an owner or administrator of the organization"
	// MessageAccountNotFound is the message of the 404 for an accountId
	// outside the key's organization.
	MessageAccountNotFound = "account not found in the key's organization"
	// MessageLimiterDown is the message of the 503 when the rate limit
	// store is unavailable.
	MessageLimiterDown = "the protection service (rate limiting) is unavailable; reads fail closed, try again later"
	// MessageRateLimitedKey is the message of a 429 of the per-key bucket
	// (60 requests a minute).
	MessageRateLimitedKey = "rate limited by the per-key limit (60 requests per minute); wait 60 seconds before retrying"
	// MessageNoEndpoint is the message of a 404 for an unknown path.
	MessageNoEndpoint = "no such endpoint; see " + svc.APIPath + "/openapi.json"
	// MessageMethod is the message of a 405.
	MessageMethod = "method not allowed: this API is read-only and accepts GET and HEAD only"
)

// Messages of the summary's own parameters (400), in the order svc-api
// checks them: after accountId, before the dates.
const (
	// MessageLevelRequired is the message when level is missing.
	MessageLevelRequired = "level is required: account or campaign"
	// MessageLevelInvalid is the message when level is neither account nor
	// campaign.
	MessageLevelInvalid = "level must be account or campaign"
	// MessageGroupByInvalid is the message for a groupBy the endpoint does
	// not know.
	MessageGroupByInvalid = "groupBy must be one of total, account, campaign, day, week, month, account,day, campaign,day"
	// MessageGroupByCampaignLevel is the message for groupBy campaign with
	// level account.
	MessageGroupByCampaignLevel = "groupBy campaign needs level campaign: account-level rows have no campaign"
)

// MessageMissingScope is the message of the 403 for a key without scope
// (such as "campaigns:read").
func MessageMissingScope(scope string) string {
	return "the API key lacks the scope this endpoint requires (" + scope + ")"
}

// capNotes are added to Note on a page that stops at the offset limit while
// rows remain, per resource.
var capNotes = map[string]string{
	"insights":         " More rows exist beyond the offset limit (10000): nextOffset is null here only because of that limit. Read them with a narrower date range (from, to) or per account (accountId).",
	"campaigns":        " More rows exist beyond the offset limit (10000): nextOffset is null here only because of that limit. Read them per account (accountId).",
	"accounts":         " More rows exist beyond the offset limit (10000): nextOffset is null here only because of that limit, and no filter of this endpoint reaches them.",
	"insights/summary": " More groups exist beyond the offset limit (10000): nextOffset is null here only because of that limit. Read them per account (accountId) when grouping by account or campaign, or with a narrower date range (from, to) when grouping by day, week or month.",
}

// Row is one row of a resource: the id of the account it belongs to (the
// accountId filter keeps it) and its JSON as the service sends it.
type Row struct {
	AccountID string
	JSON      string
}

// API is the stand-in. Its zero value answers 401 to everything (no key);
// set Key and the rows. It is an http.Handler for any path ending in
// /api/v1/developer/accounts, /campaigns or /insights, so that a site URL
// may carry a path prefix. Do not change its fields while it serves.
type API struct {
	// Key is the only key accepted (Authorization: Bearer Key).
	Key string
	// Scopes are the key's scopes, such as "accounts:read"; nil means all
	// three.
	Scopes []string
	// Accounts, Campaigns and Insights are the organization's rows, in the
	// order of the listing.
	Accounts, Campaigns, Insights []Row
	// AccountIDs are the organization's accounts, which the accountId
	// filter accepts; nil means the account ids of Accounts.
	AccountIDs []string
	// DataAsOf and GeneratedAt are the meta fields of every page (RFC 3339).
	DataAsOf, GeneratedAt string
	// Now is the clock that decides which days are in the future; nil means
	// time.Now.
	Now func() time.Time
	// NoSummary makes the API answer as a svc-api without GET
	// /insights/summary (before issue 34) does: 404 for that path, for
	// clients that fall back to reading every row.
	NoSummary bool
	// LastImport is the JSON of GET /insights/freshness's data.lastImport
	// ("null" for none); "" answers that path 404, as a svc-api older than
	// issue 46 does (freshness.go).
	LastImport string
	// Changes is the change log of GET /insights/changes, oldest first (a
	// sync token is a position in it); ChangesPrunedBelow is the least
	// position a token may hold (older: 410). changes.go.
	Changes            []ChangeEntry
	ChangesPrunedBelow int
}

// WriteError writes the error body of SPEC §7: statusCode and message (a
// string or a list of strings).
func WriteError(w http.ResponseWriter, status int, message any) {
	writeJSON(w, status, map[string]any{"statusCode": status, "message": message})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// Fixtures are the rows of the three resources, as kept in a JSON file:
//
//	{"accounts": [{"accountId": "acc_1", "row": {…}}, …], "campaigns": […], "insights": […]}
//
// where row is the row as the service sends it. svc-cli and svc-mcp keep
// their rows in such files, which e2e serves with API and validates against
// openapi.yaml.
type Fixtures struct {
	Accounts, Campaigns, Insights []Row
}

// ParseFixtures reads a fixtures file.
func ParseFixtures(b []byte) (Fixtures, error) {
	type item struct {
		AccountID string          `json:"accountId"`
		Row       json.RawMessage `json:"row"`
	}
	var file struct {
		Accounts, Campaigns, Insights []item
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&file); err != nil {
		return Fixtures{}, fmt.Errorf("svctest: fixtures: %w", err)
	}
	rows := func(items []item) ([]Row, error) {
		out := make([]Row, len(items))
		for i, it := range items {
			var buf bytes.Buffer
			if err := json.Compact(&buf, it.Row); err != nil || it.AccountID == "" {
				return nil, fmt.Errorf("svctest: fixtures: row %d: no accountId, or not JSON (%v)", i, err)
			}
			out[i] = Row{AccountID: it.AccountID, JSON: buf.String()}
		}
		return out, nil
	}
	var f Fixtures
	var err error
	if f.Accounts, err = rows(file.Accounts); err != nil {
		return Fixtures{}, err
	}
	if f.Campaigns, err = rows(file.Campaigns); err != nil {
		return Fixtures{}, err
	}
	if f.Insights, err = rows(file.Insights); err != nil {
		return Fixtures{}, err
	}
	return f, nil
}

// MustParseFixtures is ParseFixtures for package variables of tests: it
// panics on an error.
func MustParseFixtures(b []byte) Fixtures {
	f, err := ParseFixtures(b)
	if err != nil {
		panic(err)
	}
	return f
}

// ServeHTTP answers one request as svc-api does.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	i := strings.LastIndex(r.URL.Path, svc.APIPath+"/")
	resource := ""
	if i >= 0 {
		resource = r.URL.Path[i+len(svc.APIPath)+1:]
	}
	var rows []Row
	switch resource {
	case "accounts":
		rows = a.Accounts
	case "campaigns":
		rows = a.Campaigns
	case "insights":
		rows = a.Insights
	case "insights/freshness":
		if a.LastImport == "" {
			WriteError(w, http.StatusNotFound, MessageNoEndpoint)
			return
		}
	case "insights/changes": // changes.go
	case "insights/summary":
		rows = a.Insights
		if !a.NoSummary {
			break
		}
		fallthrough
	default:
		WriteError(w, http.StatusNotFound, MessageNoEndpoint)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		WriteError(w, http.StatusMethodNotAllowed, MessageMethod)
		return
	}
	scheme, key, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if a.Key == "" || !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(key) != a.Key {
		WriteError(w, http.StatusUnauthorized, MessageUnauthorized)
		return
	}
	scope, _, _ := strings.Cut(resource, "/")
	if scope += ":read"; a.Scopes != nil && !slices.Contains(a.Scopes, scope) {
		WriteError(w, http.StatusForbidden, MessageMissingScope(scope))
		return
	}
	if resource == "insights/freshness" {
		a.serveFreshness(w, r)
		return
	}
	if resource == "insights/changes" {
		a.serveChanges(w, r.URL.RawQuery)
		return
	}
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	p, problems := parseQuery(r.URL.RawQuery, resource, svc.DateOf(now().UTC()))
	if len(problems) > 0 {
		WriteError(w, http.StatusBadRequest, problems)
		return
	}
	if p.accountID != "" {
		known := slices.Contains(a.AccountIDs, p.accountID)
		if a.AccountIDs == nil {
			known = slices.ContainsFunc(a.Accounts, func(x Row) bool { return x.AccountID == p.accountID })
		}
		if !known {
			WriteError(w, http.StatusNotFound, MessageAccountNotFound)
			return
		}
		rows = slices.DeleteFunc(slices.Clone(rows), func(x Row) bool { return x.AccountID != p.accountID })
	}

	if resource == "insights/summary" {
		groups, err := summarize(rows, p.level, p.groupBy)
		if err == nil {
			groups, err = a.answer(groups, rows, p)
		}
		if err != nil {
			WriteError(w, http.StatusInternalServerError, "svctest: "+err.Error())
			return
		}
		rows = groups
	}
	data := []json.RawMessage{}
	for i := p.offset; i < len(rows) && i < p.offset+p.limit; i++ {
		data = append(data, json.RawMessage(rows[i].JSON))
	}
	note := Note
	var next *int
	if n := p.offset + len(data); n < len(rows) {
		if n <= svc.MaxOffset {
			next = &n
		} else {
			note += capNotes[resource]
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"data": data,
		"meta": map[string]any{
			"source": "stored_snapshot", "liveMetaRequest": false,
			"limit": p.limit, "offset": p.offset, "nextOffset": next, "returned": len(data),
			"generatedAt": a.GeneratedAt, "dataAsOf": a.DataAsOf, "note": note + p.answers.note(),
		},
	})
}

type params struct {
	limit, offset  int
	accountID      string
	level, groupBy string
	answers        answers
}

var reAccountID = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)

// parseQuery checks the query string of resource as svc-api does, with its
// messages, in its order. The date window itself is svc.InsightDates.
func parseQuery(rawQuery, resource string, today svc.Date) (params, []string) {
	insights := strings.HasPrefix(resource, "insights")
	summary := resource == "insights/summary"
	p := params{limit: 50, groupBy: "total"}
	var problems []string
	values, err := url.ParseQuery(rawQuery)
	if err != nil {
		problems = append(problems, "the query string is malformed (bad percent-encoding or a semicolon)")
	}
	known := []string{"limit", "offset", "accountId"}
	if insights {
		known = append(known, "from", "to")
	}
	if summary {
		known = append(known, "level", "groupBy", "sort", "top", "compareFrom", "compareTo", "status", "having")
	}
	names := make([]string, 0, len(values))
	for k := range values {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if !slices.Contains(known, k) {
			q := k
			if len(q) > 64 {
				q = q[:64] + "…"
			}
			problems = append(problems, fmt.Sprintf("unknown query parameter %s (allowed: %s)", strconv.Quote(q), strings.Join(known, ", ")))
			continue
		}
		if len(values[k]) > 1 {
			problems = append(problems, fmt.Sprintf("query parameter %s is repeated; give it once", k))
		}
	}
	get := func(k string) (string, bool) {
		v, ok := values[k]
		return firstOf(v), ok && len(v) == 1
	}
	integer := func(name, v string, lo, hi int) int {
		n, err := strconv.Atoi(v)
		switch {
		case len(v) > 12 || err != nil || !plainDigits(v):
			problems = append(problems, fmt.Sprintf("%s must be an integer between %d and %d, in plain digits (no sign, no leading zero)", name, lo, hi))
		case n < lo || n > hi:
			problems = append(problems, fmt.Sprintf("%s must be between %d and %d, got %d", name, lo, hi, n))
		default:
			return n
		}
		return 0
	}
	if v, ok := get("limit"); ok {
		p.limit = integer("limit", v, 1, svc.MaxLimit)
	}
	if v, ok := get("offset"); ok {
		p.offset = integer("offset", v, 0, svc.MaxOffset)
	}
	if v, ok := get("accountId"); ok {
		if !reAccountID.MatchString(v) {
			problems = append(problems, "accountId must match ^[a-zA-Z0-9_-]{1,128}$")
		}
		p.accountID = v
	}
	if summary {
		problems = append(problems, p.summaryProblems(values)...)
	}
	if insights {
		problems = append(problems, dateProblems(values, today)...)
	}
	if summary {
		problems = append(problems, p.answerProblems(values, today)...)
	}
	return p, problems
}

// summaryProblems checks level and groupBy, in svc-api's words.
func (p *params) summaryProblems(values url.Values) []string {
	var problems []string
	level, ok := values["level"]
	switch {
	case !ok:
		problems = append(problems, MessageLevelRequired)
	case len(level) == 1 && (level[0] == "account" || level[0] == "campaign"):
		p.level = level[0]
	case len(level) == 1:
		problems = append(problems, MessageLevelInvalid)
	}
	if g, ok := values["groupBy"]; ok && len(g) == 1 {
		switch g[0] {
		case "total", "account", "campaign", "day", "week", "month", "account,day", "campaign,day":
			p.groupBy = g[0]
		default:
			problems = append(problems, MessageGroupByInvalid)
		}
	}
	if (p.groupBy == "campaign" || p.groupBy == "campaign,day") && p.level == "account" {
		problems = append(problems, MessageGroupByCampaignLevel)
	}
	return problems
}

func firstOf(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// dateProblems checks from and to with svc.InsightDates, in svc-api's words.
func dateProblems(values url.Values, today svc.Date) []string {
	var problems []string
	dates := map[string]svc.Date{}
	usable := true
	for _, name := range []string{"from", "to"} {
		v, ok := values[name]
		if !ok {
			continue
		}
		if len(v) != 1 {
			usable = false // repeated: reported already
			continue
		}
		t, err := time.Parse(time.DateOnly, v[0])
		if err != nil || t.Format(time.DateOnly) != v[0] {
			problems = append(problems, name+" must be a date YYYY-MM-DD (UTC)")
			usable = false
			continue
		}
		d := svc.DateOf(t)
		if !d.IsValid() {
			problems = append(problems, name+" must be a date between 0001-01-01 and 9999-12-31")
			usable = false
			continue
		}
		// The day alone, the other end left to its default.
		one := [2]svc.Date{}
		if name == "to" {
			one[1] = d
		} else {
			one[0] = d
		}
		if _, err := svc.InsightDates(one[0], one[1], today); errors.Is(err, svc.ErrFutureDate) {
			problems = append(problems, fmt.Sprintf("%s must not be in the future (today is %s UTC)", name, today))
			usable = false
			continue
		}
		dates[name] = d
	}
	if !usable {
		return problems
	}
	_, err := svc.InsightDates(dates["from"], dates["to"], today)
	var dr *svc.DateRangeError
	switch {
	case err == nil:
	case errors.Is(err, svc.ErrDatesReversed):
		problems = append(problems, "from must not be after to")
	case errors.Is(err, svc.ErrRangeTooLong) && errors.As(err, &dr):
		problems = append(problems, fmt.Sprintf("the range from %s to %s covers %d days; at most %d are allowed",
			dr.Range.From, dr.Range.To, dr.Range.Days(), svc.MaxInsightDays))
	default:
		problems = append(problems, err.Error())
	}
	return problems
}

// MakeKey returns a well-formed developer key, "svc_live_" + random + its
// checksum (DESIGN §5), which svc.ValidateAPIKey and svc-api's format check
// accept; random must be 37 base62 characters ([0-9A-Za-z]), else MakeKey
// panics. Set it as API.Key for a key the stand-in accepts.
func MakeKey(random string) string {
	if len(random) != keyformat.RandomLen || strings.Trim(random, keyformat.Alphabet) != "" {
		panic(fmt.Sprintf("svctest.MakeKey: want %d base62 characters, got %q", keyformat.RandomLen, random))
	}
	body := keyformat.Prefix + random
	return body + keyformat.Checksum(body)
}

// plainDigits reports whether v is a number as svc-api reads limit and
// offset: 0, or decimal digits without a leading zero (no sign).
func plainDigits(v string) bool {
	if v == "" || len(v) > 1 && v[0] == '0' {
		return false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
