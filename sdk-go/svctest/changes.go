package svctest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// GET /insights/changes (api-server/openapi.yaml, readInsightChanges): a
// first sync answers Insights as upserts; a sync token is a position in
// Changes, the double's change log, and a sync from it answers the newest
// entry of each row after it. Tokens and cursors are opaque, bound to Key
// by a hash (another key's, or a changed one, is a 400, as svc-api's).

// Messages of the changes feed (400, 410), svc-api's texts (e2e checks them).
const (
	// MessageBadSince is the 400 for a since token not of the organization.
	MessageBadSince = "since is not a sync token of this organization (it is opaque: pass the syncToken of a sync's last page as it was returned, or start a first sync without since)"
	// MessageBadCursor is the 400 for a cursor not of the organization.
	MessageBadCursor = "cursor is not a cursor of this organization (it is opaque: pass the nextCursor of the previous page as it was returned)"
	// MessageSyncGone is the 410 for a token older than the retention.
	MessageSyncGone = "the sync token is older than the change log's retention: start a first sync again, without since"
)

// ChangeEntry is one entry of API.Changes: a row's new values (Row.JSON;
// ID its id) or its removal (Delete, with the removed row's ID, Row.AccountID
// and Date, YYYY-MM-DD).
type ChangeEntry struct {
	Delete bool
	ID     string
	Row    Row
	Date   string
}

// changesQuery is a parsed query of the feed.
type changesQuery struct {
	limit         int
	since, cursor string
}

func parseChangesQuery(rawQuery string) (changesQuery, []string) {
	q := changesQuery{limit: 100}
	var problems []string
	values, err := url.ParseQuery(rawQuery)
	if err != nil {
		problems = append(problems, "the query string is malformed (bad percent-encoding or a semicolon)")
	}
	known := []string{"since", "cursor", "limit"}
	names := make([]string, 0, len(values))
	for k := range values {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		switch {
		case k == "accountId" || k == "from" || k == "to":
			problems = append(problems, k+" is not accepted by /insights/changes: a sync (first or incremental) covers the whole organization")
			continue
		case !slices.Contains(known, k):
			n := k
			if len(n) > 64 {
				n = n[:64] + "…"
			}
			problems = append(problems, fmt.Sprintf("unknown query parameter %s (allowed: %s)", strconv.Quote(n), strings.Join(known, ", ")))
			continue
		case len(values[k]) > 1:
			problems = append(problems, fmt.Sprintf("query parameter %s is repeated; give it once", k))
			continue
		}
		v := values[k][0]
		switch k {
		case "limit":
			n, err := strconv.Atoi(v)
			switch {
			case len(v) > 12 || err != nil || !plainDigits(v):
				problems = append(problems, "limit must be an integer between 1 and 1000, in plain digits (no sign, no leading zero)")
			case n < 1 || n > 1000:
				problems = append(problems, fmt.Sprintf("limit must be between 1 and 1000, got %d", n))
			default:
				q.limit = n
			}
		default:
			if v == "" || len(v) > 512 || strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != "" {
				problems = append(problems, k+" must be the opaque value this API returned (at most 512 URL-safe characters)")
			}
			if k == "since" {
				q.since = v
			} else {
				q.cursor = v
			}
		}
	}
	if _, s := values["since"]; s {
		if _, c := values["cursor"]; c {
			problems = append(problems, "give since or cursor, not both: a cursor carries its sync's token")
		}
	}
	return q, problems
}

// seal and unseal make the double's tokens: base64url of the fields and a
// hash over Key and them.
func (a *API) seal(fields string) string {
	sum := sha256.Sum256([]byte(a.Key + "|" + fields))
	return base64.RawURLEncoding.EncodeToString([]byte(fields + "|" + hex.EncodeToString(sum[:8])))
}

func (a *API) unseal(s, kind string) ([]int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, false
	}
	i := strings.LastIndexByte(string(b), '|')
	if i < 0 || a.seal(string(b[:i])) != s {
		return nil, false
	}
	parts := strings.Split(string(b[:i]), ".")
	if parts[0] != kind {
		return nil, false
	}
	var out []int
	for _, p := range parts[1:] {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}

// serveChanges answers GET /insights/changes once the key and scope passed.
func (a *API) serveChanges(w http.ResponseWriter, rawQuery string) {
	q, problems := parseChangesQuery(rawQuery)
	if len(problems) > 0 {
		WriteError(w, http.StatusBadRequest, problems)
		return
	}
	// first (1 or 0), lo, hi, offset
	pos := []int{1, 0, len(a.Changes), 0}
	switch {
	case q.cursor != "":
		v, ok := a.unseal(q.cursor, "c")
		if !ok || len(v) != 4 {
			WriteError(w, http.StatusBadRequest, MessageBadCursor)
			return
		}
		pos = v
	case q.since != "":
		v, ok := a.unseal(q.since, "t")
		if !ok || len(v) != 1 {
			WriteError(w, http.StatusBadRequest, MessageBadSince)
			return
		}
		pos = []int{0, v[0], len(a.Changes), 0}
	}
	if pos[0] == 0 && pos[1] < a.ChangesPrunedBelow {
		WriteError(w, http.StatusGone, MessageSyncGone)
		return
	}
	items := a.changeItems(pos)
	data := []json.RawMessage{}
	for i := pos[3]; i < len(items) && i < pos[3]+q.limit; i++ {
		data = append(data, items[i])
	}
	var next, token *string
	if end := pos[3] + len(data); end < len(items) {
		c := a.seal(fmt.Sprintf("c.%d.%d.%d.%d", pos[0], pos[1], pos[2], end))
		next = &c
	} else {
		t := a.seal(fmt.Sprintf("t.%d", pos[2]))
		token = &t
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"data": data,
		"meta": map[string]any{
			"source": "stored_snapshot", "liveMetaRequest": false,
			"limit": q.limit, "returned": len(data), "nextCursor": next, "syncToken": token,
			"generatedAt": a.GeneratedAt, "dataAsOf": a.DataAsOf, "note": Note,
		},
	})
}

// changeItems are the changes of a sync: Insights as upserts (first), or the
// newest entry of each row in Changes[lo:hi], in log order.
func (a *API) changeItems(pos []int) []json.RawMessage {
	var out []json.RawMessage
	if pos[0] == 1 {
		for _, r := range a.Insights {
			out = append(out, json.RawMessage(`{"change":"upsert","insight":`+r.JSON+`}`))
		}
		return out
	}
	lo, hi := min(max(pos[1], 0), len(a.Changes)), min(pos[2], len(a.Changes))
	for i := lo; i < hi; i++ {
		e := a.Changes[i]
		if slices.ContainsFunc(a.Changes[i+1:hi], func(x ChangeEntry) bool { return x.ID == e.ID }) {
			continue
		}
		if e.Delete {
			b, _ := json.Marshal(map[string]string{"change": "delete", "id": e.ID, "accountId": e.Row.AccountID, "date": e.Date})
			out = append(out, b)
		} else {
			out = append(out, json.RawMessage(`{"change":"upsert","insight":`+e.Row.JSON+`}`))
		}
	}
	return out
}
