package svc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// ErrRedirectRefused is wrapped by the error returned when the server
// answers with a redirect. The client never follows redirects, so the key is
// never sent to another address.
var ErrRedirectRefused = errors.New("redirect refused")

// ErrSnapshotMoved is wrapped by the error an All iterator yields when
// meta.dataAsOf changes between two pages: the pages come from different
// snapshots and mixing them could skip or repeat rows. Start the listing
// again.
var ErrSnapshotMoved = errors.New("snapshot moved between pages")

// ErrIncomplete is matched (errors.Is) by the error an iterator yields when
// it cannot read every row: the offset limit (MaxOffset) stops a listing that
// no narrower request can reach, such as more than 10,100 insight rows of one
// account on one day. Use errors.As with *IncompleteError for the rows read.
var ErrIncomplete = errors.New("incomplete listing")

// IncompleteError is the error an iterator yields instead of ending short:
// the rows already yielded are all it could read.
type IncompleteError struct {
	// Endpoint is the listing, such as "GET /insights".
	Endpoint string
	// Rows is how many rows the iterator yielded before this error.
	Rows int
	// Reason says which rows could not be read and why.
	Reason string
	// Err is the failure that stopped a way around the limit, if any (such
	// as a 403 when listing the accounts needs accounts:read).
	Err error
}

// Error names the endpoint, the rows read and the reason.
func (e *IncompleteError) Error() string {
	s := fmt.Sprintf("svc: %s: %s after %d rows: %s", e.Endpoint, ErrIncomplete, e.Rows, e.Reason)
	if e.Err != nil {
		s += ": " + strings.TrimPrefix(e.Err.Error(), "svc: ")
	}
	return s
}

// Is reports whether target is ErrIncomplete.
func (e *IncompleteError) Is(target error) bool { return target == ErrIncomplete }

// Unwrap returns the failure that stopped a way around the limit, if any.
func (e *IncompleteError) Unwrap() error { return e.Err }

// ErrInvalidSiteURL is wrapped by NewClient when the site URL is not https
// (or http to a loopback host), or carries credentials, a query or a fragment.
var ErrInvalidSiteURL = errors.New("invalid site URL")

// APIError is the error returned for any answer of the service other than a
// success or a redirect. Use [errors.As] to get it from a returned error, or
// the predicates such as [IsRateLimited].
type APIError struct {
	// Endpoint is the request, such as "GET /accounts" (relative to the
	// API base; it never holds a query string).
	Endpoint string
	// StatusCode is the HTTP status code, such as http.StatusNotFound.
	StatusCode int
	// Messages are the messages of the error body. When the body was not
	// the expected JSON, it holds one message describing what came back.
	Messages []string
	// RetryAfter is how long to wait before retrying, from the Retry-After
	// header. It is 60 s on a 429 answer without that header, and zero on
	// other answers without it.
	RetryAfter time.Duration
	// RequestID is the X-Request-Id response header, for support requests.
	RequestID string
}

// Error returns a one-line description: endpoint, status, messages and the
// request id.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("svc: ")
	if e.Endpoint != "" {
		b.WriteString(e.Endpoint)
		b.WriteString(": ")
	}
	b.WriteString(strconv.Itoa(e.StatusCode))
	if t := http.StatusText(e.StatusCode); t != "" {
		b.WriteString(" ")
		b.WriteString(t)
	}
	if len(e.Messages) > 0 {
		b.WriteString(": ")
		b.WriteString(strings.Join(e.Messages, "; "))
	}
	if e.StatusCode == http.StatusTooManyRequests && e.RetryAfter > 0 {
		fmt.Fprintf(&b, "; retry after %s", e.RetryAfter)
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " (request id %s)", e.RequestID)
	}
	return b.String()
}

// IsUnauthorized reports whether err is an [*APIError] with status 401: the
// key is missing, invalid, revoked or expired.
func IsUnauthorized(err error) bool { return hasStatus(err, http.StatusUnauthorized) }

// IsForbidden reports whether err is an [*APIError] with status 403: the key
// lacks the endpoint's scope, or its issuer is no longer an owner or
// administrator of the organization.
func IsForbidden(err error) bool { return hasStatus(err, http.StatusForbidden) }

// IsNotFound reports whether err is an [*APIError] with status 404, such as
// an accountId outside the key's organization.
func IsNotFound(err error) bool { return hasStatus(err, http.StatusNotFound) }

// IsRateLimited reports whether err is an [*APIError] with status 429; its
// RetryAfter says how long to wait.
func IsRateLimited(err error) bool { return hasStatus(err, http.StatusTooManyRequests) }

// IsUnavailable reports whether err is an [*APIError] with status 503: the
// service's protection store is unavailable and reads fail closed.
func IsUnavailable(err error) bool { return hasStatus(err, http.StatusServiceUnavailable) }

func hasStatus(err error, code int) bool {
	var e *APIError
	return errors.As(err, &e) && e.StatusCode == code
}

// ValidationError reports options that the client rejected before making
// any request.
type ValidationError struct {
	// Problems lists every problem found, one sentence each.
	Problems []string
	// causes are the errors behind some problems (a *DateRangeError).
	causes []error
}

// Error returns all the problems on one line.
func (e *ValidationError) Error() string {
	return "svc: invalid request, no request was made: " + strings.Join(e.Problems, "; ")
}

// Unwrap returns the errors behind the problems, such as the
// *DateRangeError of the insight dates, so that errors.Is(err,
// ErrFutureDate) and errors.As work on the error of a listing.
func (e *ValidationError) Unwrap() []error { return e.causes }

const (
	// maxErrorBody bounds how much of an error body is read.
	maxErrorBody = 64 << 10
	// maxSnippet bounds how much of an unexpected body an error quotes.
	maxSnippet = 200
	// defaultRateLimitWait is the wait after a 429 without Retry-After.
	defaultRateLimitWait = 60 * time.Second
)

// newAPIError builds the error for a non-success answer. It reads at most
// maxErrorBody bytes and removes the key from everything it keeps, in case a
// misbehaving server echoes it.
func newAPIError(endpoint string, resp *http.Response, now time.Time, key string) *APIError {
	body, readErr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody+1))
	truncated := len(body) > maxErrorBody
	if truncated {
		body = body[:maxErrorBody]
	}
	e := &APIError{
		Endpoint:   endpoint,
		StatusCode: resp.StatusCode,
		RequestID:  clean(resp.Header.Get("X-Request-Id"), 128, key),
	}
	retryAfter, ok := parseRetryAfter(resp.Header.Get("Retry-After"), now)
	switch {
	case ok:
		e.RetryAfter = retryAfter
	case resp.StatusCode == http.StatusTooManyRequests:
		e.RetryAfter = defaultRateLimitWait
	}

	var eb struct {
		Message json.RawMessage `json:"message"`
	}
	if !truncated && readErr == nil && json.Unmarshal(body, &eb) == nil {
		var one string
		var many []string
		switch {
		case json.Unmarshal(eb.Message, &one) == nil:
			many = []string{one}
		case json.Unmarshal(eb.Message, &many) == nil:
		}
		for _, m := range many {
			if m = clean(m, 1000, key); m != "" {
				e.Messages = append(e.Messages, m)
			}
		}
		if len(e.Messages) > 0 {
			return e
		}
	}

	// Not the documented error body: say what came back instead.
	var what string
	switch {
	case readErr != nil:
		what = "reading the error body failed: " + clean(readErr.Error(), maxSnippet, key)
	case strings.TrimSpace(string(body)) == "":
		what = "empty error body"
	case truncated:
		what = fmt.Sprintf("error body larger than %d bytes, starting %q", maxErrorBody, clean(string(body), maxSnippet, key))
	default:
		ct := clean(resp.Header.Get("Content-Type"), 100, key)
		if ct == "" {
			ct = "no content type"
		}
		what = fmt.Sprintf("unexpected error body (%s): %q", ct, clean(string(body), maxSnippet, key))
	}
	e.Messages = []string{what}
	return e
}

// clean makes server-provided text safe to show: valid UTF-8, no control
// characters, at most limit runes, and without the key.
func clean(s string, limit int, key string) string {
	if key != "" {
		s = strings.ReplaceAll(s, key, redacted)
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > limit {
		s = string(r[:limit]) + "…"
	}
	return s
}

// parseRetryAfter reads a Retry-After header: delay seconds (at most a day)
// or an HTTP date. ok is false when the header is absent or unusable.
func parseRetryAfter(v string, now time.Time) (d time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 || n > 24*3600 {
			return 0, false
		}
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now).Round(time.Second), 0), true
	}
	return 0, false
}
