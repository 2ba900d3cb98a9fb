package server

// The rows of SPEC §2 are declared in store/schema and encoded by the
// store (store/gen); what is here is the envelope's meta and the error body.

// Note is meta.note of every response.
const Note = "Stored snapshot: the data may be stale; no live request to the advertising platform was made."

// Notes added to Note on a page that stops at the offset limit while rows
// remain (nextOffset is then null, as SPEC §4 caps offset at 10000), per
// endpoint: how to reach the rest (DESIGN §4).
const (
	capNoteInsights  = " More rows exist beyond the offset limit (10000): nextOffset is null here only because of that limit. Read them with a narrower date range (from, to) or per account (accountId)."
	capNoteCampaigns = " More rows exist beyond the offset limit (10000): nextOffset is null here only because of that limit. Read them per account (accountId)."
	capNoteAccounts  = " More rows exist beyond the offset limit (10000): nextOffset is null here only because of that limit, and no filter of this endpoint reaches them."
)

// KeyExpiresHeader carries the expiry time of the request's key, RFC 3339
// in UTC, on every response to a request whose key was recognised.
const KeyExpiresHeader = "Api-Key-Expires-At"

type meta struct {
	Source          string `json:"source"`
	LiveMetaRequest bool   `json:"liveMetaRequest"`
	Limit           int    `json:"limit"`
	Offset          int    `json:"offset"`
	NextOffset      *int   `json:"nextOffset"`
	Returned        int    `json:"returned"`
	GeneratedAt     string `json:"generatedAt"`
	DataAsOf        string `json:"dataAsOf"`
	Note            string `json:"note"`
}

// errorBody is the error of SPEC §7; Message is a string or a list of strings.
type errorBody struct {
	StatusCode int `json:"statusCode"`
	Message    any `json:"message"`
}
