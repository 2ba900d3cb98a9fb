package query

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// GET /insights/changes (DESIGN §4b, issue 42): since, cursor and limit.
// The token and the cursor are opaque here: the server checks them (their
// MAC binds them to the organization).

// Limits of the changes feed.
const (
	ChangesDefaultLimit = 100
	ChangesMaxLimit     = 1000
	// maxTokenBytes bounds a token or cursor (the server's are far shorter).
	maxTokenBytes = 512
)

// ChangesParams is a validated query of the changes feed.
type ChangesParams struct {
	Limit  int
	Since  string // the sync token; "" for a first sync
	Cursor string // a later page of a sync; "" for its first page
}

// changesAllowed are the changes feed's parameters.
var changesAllowed = []string{"since", "cursor", "limit"}

// The messages of the changes feed's own rules; sdk-go/svctest holds the
// same texts and e2e checks that the two agree.
const (
	msgChangesScope      = "%s is not accepted by /insights/changes: a sync (first or incremental) covers the whole organization"
	msgChangesBoth       = "give since or cursor, not both: a cursor carries its sync's token"
	msgChangesTokenShape = "%s must be the opaque value this API returned (at most 512 URL-safe characters)"
)

// ParseChanges validates rawQuery for GET /insights/changes. It returns
// every problem found, in a stable order; ChangesParams is meaningful only
// when there is none.
func ParseChanges(rawQuery string) (ChangesParams, []string) {
	p := ChangesParams{Limit: ChangesDefaultLimit}
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
	for _, k := range names {
		switch {
		case k == "accountId" || k == "from" || k == "to":
			problems = append(problems, fmt.Sprintf(msgChangesScope, k))
			continue
		case !slices.Contains(changesAllowed, k):
			problems = append(problems, fmt.Sprintf("unknown query parameter %s (allowed: %s)", quoteName(k), strings.Join(changesAllowed, ", ")))
			continue
		case len(values[k]) > 1:
			problems = append(problems, fmt.Sprintf("query parameter %s is repeated; give it once", k))
			continue
		}
		v := values[k][0]
		switch k {
		case "limit":
			n, msg := integer("limit", v, 1, ChangesMaxLimit)
			if msg != "" {
				problems = append(problems, msg)
			}
			p.Limit = n
		case "since", "cursor":
			if !tokenShaped(v) {
				problems = append(problems, fmt.Sprintf(msgChangesTokenShape, k))
			}
			if k == "since" {
				p.Since = v
			} else {
				p.Cursor = v
			}
		}
	}
	if _, s := values["since"]; s {
		if _, c := values["cursor"]; c {
			problems = append(problems, msgChangesBoth)
		}
	}
	return p, problems
}

// tokenShaped reports whether v could be a token or a cursor: base64url
// without padding, not empty, at most maxTokenBytes.
func tokenShaped(v string) bool {
	if v == "" || len(v) > maxTokenBytes {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
