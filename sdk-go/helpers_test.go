package svc

import (
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// zeroKey is the key whose random part is 37 zeros; its checksum was computed
// once (CRC32 1773527612) and is hard-coded so that drift is caught.
const zeroKey = "svc_live_00000000000000000000000000000000000001w1XY4"

// testToday is the fixed "today" of the tests.
var testToday = time.Date(2026, 11, 20, 10, 30, 0, 0, time.UTC)

// newTestKey generates a valid key the way keys-admin does: 37 random base62
// characters and the base62 CRC32 checksum of everything before it.
func newTestKey(t testing.TB) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(APIKeyPrefix)
	for range apiKeyRandomLen {
		b.WriteByte(base62Alphabet[rand.IntN(len(base62Alphabet))])
	}
	return b.String() + base62Checksum(b.String())
}

// base62Checksum is the test's own checksum, written independently of
// apiKeyChecksum.
func base62Checksum(s string) string {
	n := crc32.ChecksumIEEE([]byte(s))
	digits := ""
	for n > 0 {
		digits = string(base62Alphabet[n%62]) + digits
		n /= 62
	}
	return strings.Repeat("0", 6-len(digits)) + digits
}

// withClock and withJitter replace the clock and the jitter in tests.
func withClock(now func() time.Time) Option {
	return func(c *config) error { c.now = now; return nil }
}

func withJitter(d time.Duration) Option {
	return func(c *config) error { c.jitter = func() time.Duration { return d }; return nil }
}

// withRetryBase shortens the backoff after a transient failure, so that
// tests outside a synctest bubble do not sleep.
func withRetryBase(d time.Duration) Option {
	return func(c *config) error { c.retryBase = d; return nil }
}

func fixedClock() time.Time { return testToday }

// testAPIPath is where the test servers mount the API: below a non-empty
// base path, as a site served under a prefix would.
const testAPIPath = "/prefix/api/v1/developer"

// server is an httptest server that serves the API below /prefix and
// records the requests it got.
type server struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
}

func (s *server) requests() []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// newServer starts a server whose API endpoints are answered by h, and a
// client for it. Any request outside the API path fails the test.
func newServer(t *testing.T, h http.HandlerFunc, opts ...Option) (*Client, *server) {
	t.Helper()
	s := &server{}
	mux := http.NewServeMux()
	mux.Handle(testAPIPath+"/", http.StripPrefix(testAPIPath, h))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request outside the API path: %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
	})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.reqs = append(s.reqs, r.Clone(r.Context()))
		s.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	c, err := NewClient(append([]Option{
		WithAPIKey(zeroKey), WithSiteURL(s.URL + "/prefix"), withClock(fixedClock), withRetryBase(time.Millisecond),
	}, opts...)...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c, s
}

// jsonHandler answers every request with status and body.
func jsonHandler(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// roundTripFunc is an in-memory transport, for tests inside a synctest
// bubble where a real network would not be durably blocking.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// response builds a response for a roundTripFunc.
func response(r *http.Request, status int, header http.Header, body string) *http.Response {
	if header == nil {
		header = http.Header{}
	}
	return &http.Response{
		StatusCode: status,
		Status:     fmt.Sprintf("%d %s", status, http.StatusText(status)),
		Header:     header,
		Body:       io.NopCloser(strings.NewReader(body)),
		Request:    r,
		ProtoMajor: 1, ProtoMinor: 1,
	}
}

// newFakeClient returns a client whose requests go to rt.
func newFakeClient(t *testing.T, rt roundTripFunc, opts ...Option) *Client {
	t.Helper()
	c, err := NewClient(append([]Option{
		WithAPIKey(zeroKey), WithHTTPClient(&http.Client{Transport: rt}), withClock(fixedClock),
	}, opts...)...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

// diff reports the differences between want and got, field by field, or ""
// when they are deeply equal.
func diff(want, got any) string {
	var b strings.Builder
	diffValue(&b, "", reflect.ValueOf(want), reflect.ValueOf(got))
	return b.String()
}

func diffValue(b *strings.Builder, path string, w, g reflect.Value) {
	if !w.IsValid() || !g.IsValid() {
		if w.IsValid() != g.IsValid() {
			fmt.Fprintf(b, "%s: want %v, got %v\n", path, w, g)
		}
		return
	}
	if w.Type() != g.Type() {
		fmt.Fprintf(b, "%s: want type %s, got %s\n", path, w.Type(), g.Type())
		return
	}
	switch w.Kind() {
	case reflect.Pointer:
		if w.IsNil() || g.IsNil() {
			if w.IsNil() != g.IsNil() {
				fmt.Fprintf(b, "%s: want %s, got %s\n", path, show(w), show(g))
			}
			return
		}
		diffValue(b, path, w.Elem(), g.Elem())
		return
	case reflect.Struct:
		if wt, ok := w.Interface().(time.Time); ok {
			if gt := g.Interface().(time.Time); !wt.Equal(gt) {
				fmt.Fprintf(b, "%s: want %s, got %s\n", path, wt, gt)
			}
			return
		}
		for i := range w.NumField() {
			if !w.Type().Field(i).IsExported() {
				continue // such as Page's raw rows, checked by their own tests
			}
			diffValue(b, path+"."+w.Type().Field(i).Name, w.Field(i), g.Field(i))
		}
		return
	case reflect.Slice:
		if w.Len() != g.Len() {
			fmt.Fprintf(b, "%s: want %d elements, got %d\n", path, w.Len(), g.Len())
		}
		for i := range min(w.Len(), g.Len()) {
			diffValue(b, fmt.Sprintf("%s[%d]", path, i), w.Index(i), g.Index(i))
		}
		return
	}
	if !reflect.DeepEqual(w.Interface(), g.Interface()) {
		fmt.Fprintf(b, "%s: want %s, got %s\n", path, show(w), show(g))
	}
}

func show(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "nil"
		}
		return "&" + show(v.Elem())
	}
	return fmt.Sprintf("%#v", v.Interface())
}

func ptr[T any](v T) *T { return &v }
