package svc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
)

// changesEndpoint is the changes feed (api-server/openapi.yaml,
// readInsightChanges).
const changesEndpoint = "/insights/changes"

// ChangeKind says what a [Change] is.
type ChangeKind string

// The kinds of [Change].
const (
	// ChangeUpsert: add the row, or replace the row of its id (Insight).
	ChangeUpsert ChangeKind = "upsert"
	// ChangeDelete: remove the row of ID (AccountID and Date name it too).
	// It may name a row the copy never had (added and removed between two
	// syncs): ignore it then.
	ChangeDelete ChangeKind = "delete"
	// ChangeSyncToken ends a complete sync: SyncToken is the token of the
	// next one. Store it with the copy, after applying the changes before
	// it. Nothing follows it.
	ChangeSyncToken ChangeKind = "syncToken"
)

// Change is one item of [InsightsService.Changes].
type Change struct {
	Kind ChangeKind
	// ID is the row's id (upsert and delete).
	ID string
	// Insight is an upsert's row, with its current values.
	Insight *Insight
	// AccountID and Date name a removed row.
	AccountID string
	Date      Date
	// Raw is an upsert's row exactly as the service sent it.
	Raw json.RawMessage
	// SyncToken is set on the last item (ChangeSyncToken) only.
	SyncToken string
}

// ChangesMeta is the meta of a page of changes.
type ChangesMeta struct {
	Source          string  `json:"source"`
	LiveMetaRequest bool    `json:"liveMetaRequest"`
	Limit           int     `json:"limit"`
	Returned        int     `json:"returned"`
	NextCursor      *string `json:"nextCursor"`
	SyncToken       *string `json:"syncToken"`
	GeneratedAt     string  `json:"generatedAt"`
	DataAsOf        string  `json:"dataAsOf"`
	Note            string  `json:"note"`
}

// ChangesPage is one page of the changes feed.
type ChangesPage struct {
	Data []Change
	Meta ChangesMeta
	// Response is the metadata of the HTTP answer.
	Response *Response
}

// wireChange is a change as the service sends it.
type wireChange struct {
	Change    string          `json:"change"`
	Insight   json.RawMessage `json:"insight"`
	ID        string          `json:"id"`
	AccountID string          `json:"accountId"`
	Date      string          `json:"date"`
}

// UnmarshalJSON decodes a page of changes.
func (p *ChangesPage) UnmarshalJSON(b []byte) error {
	var w struct {
		Data []wireChange `json:"data"`
		Meta ChangesMeta  `json:"meta"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	p.Meta, p.Data = w.Meta, make([]Change, 0, len(w.Data))
	for i, c := range w.Data {
		switch ChangeKind(c.Change) {
		case ChangeUpsert:
			var ins Insight
			if err := json.Unmarshal(c.Insight, &ins); err != nil {
				return fmt.Errorf("data[%d].insight: %w", i, err)
			}
			p.Data = append(p.Data, Change{Kind: ChangeUpsert, ID: ins.ID, Insight: &ins, Raw: c.Insight})
		case ChangeDelete:
			d, err := ParseDate(c.Date)
			if err != nil || c.ID == "" {
				return fmt.Errorf("data[%d]: a delete without its id or date (%q)", i, c.Date)
			}
			p.Data = append(p.Data, Change{Kind: ChangeDelete, ID: c.ID, AccountID: c.AccountID, Date: d})
		default:
			return fmt.Errorf("data[%d]: unknown change %q", i, c.Change)
		}
	}
	return nil
}

// ErrResyncRequired is matched (errors.Is) by the error of a sync whose
// token is older than the service's change retention (410 Gone): the copy
// cannot be brought up to date by changes. Empty it and sync again from
// scratch: [InsightsService.Changes] with an empty token.
var ErrResyncRequired = errors.New("sync token expired: resync from scratch")

// ResyncError is the error of a 410 answer to a sync token. It matches
// [ErrResyncRequired] and holds the [*APIError].
type ResyncError struct {
	Err *APIError
}

func (e *ResyncError) Error() string {
	return e.Err.Error() + " (svc: the copy must be synced again from scratch, without a token)"
}

// Unwrap returns ErrResyncRequired and the API error.
func (e *ResyncError) Unwrap() []error { return []error{ErrResyncRequired, e.Err} }

// ChangesOptions are the options of a page of changes.
type ChangesOptions struct {
	// Since is the sync token of the previous sync; "" for a first sync.
	Since string
	// Cursor is the nextCursor of the previous page of this sync (not with
	// Since).
	Cursor string
	// Limit is the number of changes a page, 1 to 1000; 0 means the
	// service's default (100).
	Limit int
}

// ChangesPage returns one page of the changes feed: a first sync's rows
// without opts.Since, or the changes since that token. A 410 is a
// [*ResyncError]. API: GET /insights/changes.
func (s *InsightsService) ChangesPage(ctx context.Context, opts *ChangesOptions) (*ChangesPage, error) {
	return changesPage(ctx, s.client, *copyOrZero(opts), false)
}

func changesPage(ctx context.Context, c *Client, o ChangesOptions, bulk bool) (*ChangesPage, error) {
	if o.Limit < 0 || o.Limit > 1000 || (o.Since != "" && o.Cursor != "") {
		return nil, &ValidationError{Problems: []string{"changes: limit must be 0 (the default) or 1 to 1000, and since and cursor are not given together"}}
	}
	q := url.Values{}
	if o.Since != "" {
		q.Set("since", o.Since)
	}
	if o.Cursor != "" {
		q.Set("cursor", o.Cursor)
	}
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	page := new(ChangesPage)
	resp, err := c.get(ctx, changesEndpoint, q, page, bulk)
	if apiErr, ok := errors.AsType[*APIError](err); ok && apiErr.StatusCode == http.StatusGone {
		return nil, &ResyncError{Err: apiErr}
	}
	if err != nil {
		return nil, err
	}
	page.Response = resp
	return page, nil
}

// Changes iterates over one sync of the organization's insight rows: with
// token "" a first sync (every current row as a ChangeUpsert), otherwise the
// rows changed (ChangeUpsert, with their current values) and removed
// (ChangeDelete) since the token, each row once, in commit order. A
// complete sync ends with one ChangeSyncToken item whose SyncToken is the
// next sync's token. Pages of 1000 changes, paced by the service's
// rate-limit headers and retried as All's are. It yields an error once and
// stops; a token older than the service's retention yields a *ResyncError
// (errors.Is(err, ErrResyncRequired)): sync again with token "". A sync
// that stops early (an error, or the consumer) has no new token: the next
// one starts again from token. API: GET /insights/changes.
func (s *InsightsService) Changes(ctx context.Context, token string) iter.Seq2[Change, error] {
	return func(yield func(Change, error) bool) {
		o := ChangesOptions{Since: token, Limit: 1000}
		for {
			page, err := changesPage(ctx, s.client, o, true)
			if err != nil {
				yield(Change{}, err)
				return
			}
			for _, c := range page.Data {
				if !yield(c, nil) {
					return
				}
			}
			m := page.Meta
			switch {
			case m.NextCursor != nil && *m.NextCursor != "":
				o = ChangesOptions{Cursor: *m.NextCursor, Limit: o.Limit}
			case m.SyncToken != nil && *m.SyncToken != "":
				yield(Change{Kind: ChangeSyncToken, SyncToken: *m.SyncToken}, nil)
				return
			default:
				yield(Change{}, fmt.Errorf("svc: GET %s: %w: a page with neither nextCursor nor syncToken", changesEndpoint, ErrIncomplete))
				return
			}
		}
	}
}
