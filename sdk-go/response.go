package svc

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// KeyExpiresHeader is the response header in which the service sends the
// expiry time of the key that authenticated the request, in RFC 3339 (UTC).
const KeyExpiresHeader = "Api-Key-Expires-At"

// Response is what the client learned from one HTTP answer besides its rows:
// the request id, the rate-limit buckets and the key's expiry. Pages carry the
// Response they came from; [Hooks.OnResponse] sees every one, errors
// included.
type Response struct {
	// StatusCode is the HTTP status code.
	StatusCode int
	// RequestID is the X-Request-Id header, for support requests.
	RequestID string
	// RateLimits are the rate-limit buckets the answer describes (the
	// RateLimit-Policy and RateLimit headers), in the order of the policy.
	RateLimits []RateLimit
	// KeyExpiresAt is when the key expires (the Api-Key-Expires-At header),
	// or the zero time when the answer did not say.
	KeyExpiresAt time.Time
	// Meta is the envelope's meta of a successful page; nil otherwise.
	Meta *Meta
}

// RateLimit is the state of one rate-limit bucket after a request.
type RateLimit struct {
	// Bucket names the bucket: "key", "org" or "ip".
	Bucket string
	// Quota is how many requests the bucket allows per Window.
	Quota int
	// Window is the bucket's time window.
	Window time.Duration
	// Remaining is how many requests the bucket allows now, or -1 when the
	// answer did not report this bucket (the service reports the tightest).
	Remaining int
	// Reset is how long until the bucket is full again; zero when not
	// reported.
	Reset time.Duration
}

// Interval is the steady spacing of requests the bucket allows once its
// burst is used: Window / Quota (1 s for 60 a minute).
func (r RateLimit) Interval() time.Duration {
	if r.Quota <= 0 || r.Window <= 0 {
		return 0
	}
	return r.Window / time.Duration(r.Quota)
}

// newResponse reads the metadata of an answer. key is removed from the
// request id, as from every other text the server sends.
func newResponse(resp *http.Response, key string) *Response {
	r := &Response{
		StatusCode: resp.StatusCode,
		RequestID:  clean(resp.Header.Get("X-Request-Id"), 128, key),
		RateLimits: parseRateLimits(resp.Header.Get("RateLimit-Policy"), resp.Header.Get("RateLimit")),
	}
	if v := resp.Header.Get(KeyExpiresHeader); v != "" {
		if t, err := time.Parse(time.RFC3339, strings.TrimSpace(v)); err == nil {
			r.KeyExpiresAt = t.UTC()
		}
	}
	return r
}

// parseRateLimits combines RateLimit-Policy (`"key";q=60;w=60, …`) and
// RateLimit (`"key";r=12;t=48`), the structured-field form of
// draft-ietf-httpapi-ratelimit-headers. Buckets named only in RateLimit are
// kept with an unknown quota; unusable members are skipped.
func parseRateLimits(policy, current string) []RateLimit {
	var out []RateLimit
	index := map[string]int{}
	for _, m := range parseSFList(policy) {
		q, qok := m.params["q"]
		if !qok || q <= 0 {
			continue
		}
		w := m.params["w"]
		if w <= 0 {
			w = 60 // the draft's default window is not fixed; the service always sends w
		}
		index[m.name] = len(out)
		out = append(out, RateLimit{Bucket: m.name, Quota: q, Window: time.Duration(w) * time.Second, Remaining: -1})
	}
	for _, m := range parseSFList(current) {
		r, ok := m.params["r"]
		if !ok || r < 0 {
			continue
		}
		i, known := index[m.name]
		if !known {
			i = len(out)
			index[m.name] = i
			out = append(out, RateLimit{Bucket: m.name, Remaining: -1})
		}
		out[i].Remaining = r
		out[i].Reset = time.Duration(max(m.params["t"], 0)) * time.Second
	}
	return out
}

// sfMember is one member of a structured-field list: a string or token
// with integer parameters.
type sfMember struct {
	name   string
	params map[string]int
}

// parseSFList parses the subset of RFC 8941 lists the rate-limit fields
// use: members that are a string or a token, with parameters whose values
// are integers (other parameter values are ignored). It is hand-written
// because the module uses the standard library only, which has no
// structured-field parser; a malformed member is dropped, not the list.
func parseSFList(s string) []sfMember {
	var out []sfMember
	for _, raw := range splitOutsideQuotes(s, ',') {
		parts := splitOutsideQuotes(raw, ';')
		name := strings.TrimSpace(parts[0])
		if n, err := strconv.Unquote(name); err == nil && strings.HasPrefix(name, `"`) {
			name = n
		}
		if name == "" {
			continue
		}
		m := sfMember{name: name, params: map[string]int{}}
		for _, p := range parts[1:] {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if !ok {
				continue
			}
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				m.params[strings.TrimSpace(k)] = n
			}
		}
		out = append(out, m)
	}
	return out
}

// splitOutsideQuotes splits s at sep, except inside double-quoted strings
// (with backslash escapes).
func splitOutsideQuotes(s string, sep byte) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case c == sep && !quoted:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
