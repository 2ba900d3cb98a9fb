package svc

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestNewClientRequiresKey(t *testing.T) {
	t.Parallel()
	if _, err := NewClient(); !errors.Is(err, ErrMissingAPIKey) {
		t.Errorf("NewClient() = %v, want ErrMissingAPIKey", err)
	}
	if _, err := NewClient(WithAPIKey("svc_live_nope")); !errors.Is(err, ErrInvalidAPIKey) {
		t.Errorf("NewClient(bad key) = %v, want ErrInvalidAPIKey", err)
	}
}

func TestWithAPIKeyFromEnv(t *testing.T) {
	// Not parallel: t.Setenv.
	key := newTestKey(t)
	t.Setenv(APIKeyEnv, key)
	c, err := NewClient(WithAPIKeyFromEnv())
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	if c.cfg.key() != key {
		t.Error("the key from SVC_API_KEY was not used")
	}

	t.Setenv(APIKeyEnv, "")
	if _, err := NewClient(WithAPIKeyFromEnv()); !errors.Is(err, ErrMissingAPIKey) || !strings.Contains(err.Error(), APIKeyEnv) {
		t.Errorf("NewClient with SVC_API_KEY empty = %v, want ErrMissingAPIKey naming the variable", err)
	}

	t.Setenv(APIKeyEnv, key[:40])
	_, err = NewClient(WithAPIKeyFromEnv())
	if !errors.Is(err, ErrInvalidAPIKey) || strings.Contains(err.Error(), key[:40]) {
		t.Errorf("NewClient with a truncated key = %v, want ErrInvalidAPIKey without the key", err)
	}
}

func TestNewClientKeyNotReadImplicitly(t *testing.T) {
	t.Setenv(APIKeyEnv, zeroKey)
	if _, err := NewClient(); !errors.Is(err, ErrMissingAPIKey) {
		t.Errorf("NewClient() with SVC_API_KEY set = %v, want ErrMissingAPIKey", err)
	}
}

func TestSiteURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		site     string
		wantBase string // "" when the site must be refused
		wantErr  string
	}{
		{"", "", "absolute URL"},
		{DefaultSiteURL, "https://adsnap.example/api/v1/developer", ""},
		{"https://adsnap.example/", "https://adsnap.example/api/v1/developer", ""},
		{"https://adsnap.example/base/", "https://adsnap.example/base/api/v1/developer", ""},
		{"https://adsnap.example/base/api/v1/developer", "https://adsnap.example/base/api/v1/developer", ""},
		{"http://localhost:8080", "http://localhost:8080/api/v1/developer", ""},
		{"http://127.0.0.1:8080/p", "http://127.0.0.1:8080/p/api/v1/developer", ""},
		{"http://127.9.9.9", "http://127.9.9.9/api/v1/developer", ""},
		{"http://[::1]:9000", "http://[::1]:9000/api/v1/developer", ""},
		{"http://adsnap.example", "", "loopback"},
		{"http://10.0.0.1", "", "loopback"},
		{"http://localhost.evil.example", "", "loopback"},
		{"ftp://adsnap.example", "", "scheme"},
		{"adsnap.example", "", "absolute URL"},
		{"https://user:s3cret@adsnap.example", "", "user information"},
		{"https://adsnap.example/?key=s3cret", "", "query"},
		{"https://adsnap.example/?", "", "query"},
		{"https://adsnap.example/#s3cret", "", "fragment"},
		{"https://adsnap.example:port/", "", "cannot be parsed"},
	}
	for _, tt := range tests {
		t.Run(tt.site, func(t *testing.T) {
			t.Parallel()
			c, err := NewClient(WithAPIKey(zeroKey), WithSiteURL(tt.site))
			if tt.wantBase == "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrInvalidSiteURL) {
					t.Fatalf("NewClient(WithSiteURL(%q)) = %v, want ErrInvalidSiteURL containing %q", tt.site, err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "s3cret") {
					t.Errorf("error %q repeats a secret from the site URL", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewClient(WithSiteURL(%q)): %v", tt.site, err)
			}
			if got := c.cfg.base.String(); got != tt.wantBase {
				t.Errorf("API base = %q, want %q", got, tt.wantBase)
			}
		})
	}
}

func TestOptionErrors(t *testing.T) {
	t.Parallel()
	for name, opt := range map[string]Option{
		"nil http client":   WithHTTPClient(nil),
		"zero timeout":      WithTimeout(0),
		"negative timeout":  WithTimeout(-time.Second),
		"negative retries":  WithRetryOnRateLimit(-1),
		"newline in suffix": WithUserAgentSuffix("x\r\nX-Evil: 1"),
	} {
		if _, err := NewClient(WithAPIKey(zeroKey), opt); err == nil || !strings.HasPrefix(err.Error(), "svc: ") {
			t.Errorf("%s: NewClient = %v, want an error starting with \"svc: \"", name, err)
		}
	}
}

func TestRequestHeadersAndPath(t *testing.T) {
	t.Parallel()
	c, srv := newServer(t, jsonHandler(http.StatusOK, `{"data":[],"meta":{"nextOffset":null}}`),
		WithUserAgentSuffix("svc-cli/2.0.0"))
	if _, err := c.Accounts.List(t.Context(), nil); err != nil {
		t.Fatalf("List: %v", err)
	}
	reqs := srv.requests()
	if len(reqs) != 1 {
		t.Fatalf("got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	checks := []struct{ name, got, want string }{
		{"method", r.Method, http.MethodGet},
		{"path", r.URL.Path, "/prefix/api/v1/developer/accounts"},
		{"query", r.URL.RawQuery, ""},
		{"Authorization", r.Header.Get("Authorization"), "Bearer " + zeroKey},
		{"Accept", r.Header.Get("Accept"), "application/json"},
		{"User-Agent", r.Header.Get("User-Agent"), "svc-sdk-go/" + Version + " svc-cli/2.0.0"},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s = %q, want %q", ch.name, ch.got, ch.want)
		}
	}
}

func TestCallerHTTPClientNotModified(t *testing.T) {
	t.Parallel()
	hc := &http.Client{Timeout: time.Minute}
	c, err := NewClient(WithAPIKey(zeroKey), WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	if hc.CheckRedirect != nil {
		t.Error("NewClient set CheckRedirect on the caller's http.Client")
	}
	if c.cfg.httpClient == hc || c.cfg.httpClient.CheckRedirect == nil || c.cfg.httpClient.Timeout != time.Minute {
		t.Error("the client should use a copy of the caller's http.Client with CheckRedirect set")
	}
}

func TestKeyNeverPrinted(t *testing.T) {
	t.Parallel()
	key := newTestKey(t)
	c, err := NewClient(WithAPIKey(key), WithSiteURL("http://127.0.0.1:1/p"))
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]any{
		"*Client":    c,
		"Client":     *c,
		"config":     c.cfg,
		"*config":    &c.cfg,
		"Accounts":   c.Accounts,
		"*Accounts":  *c.Accounts,
		"Insights":   c.Insights,
		"struct":     struct{ C *Client }{c},
		"struct val": struct{ C Client }{*c},
		"unexported": struct{ c Client }{*c},
		"slice":      []*Client{c},
		"key holder": c.cfg.key,
	}
	verbs := []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T", "%p", "%10.3v", "%-v", "% x"}
	forms := []string{hexOf(key), strings.ToUpper(hexOf(key)), key[9:]}
	for name, v := range values {
		for _, verb := range verbs {
			out := fmt.Sprintf(verb, v)
			for _, f := range forms {
				if strings.Contains(out, f) {
					t.Errorf("fmt.Sprintf(%q, %s) = %q shows the key", verb, name, out)
				}
			}
		}
	}
	for name, s := range map[string]string{
		"String": c.String(), "GoString": c.GoString(),
		"config.String": c.cfg.String(), "config.GoString": c.cfg.GoString(),
	} {
		if strings.Contains(s, key[9:]) {
			t.Errorf("%s() = %q shows the key", name, s)
		}
		if !strings.Contains(s, redacted) {
			t.Errorf("%s() = %q does not say the key is redacted", name, s)
		}
	}
	// A request that fails leaves the key out of the error too.
	_, err = c.Accounts.List(t.Context(), nil)
	if err == nil {
		t.Fatal("List to a closed port succeeded")
	}
	for _, verb := range verbs {
		if out := fmt.Sprintf(verb, err); strings.Contains(out, key[9:]) {
			t.Errorf("fmt.Sprintf(%q, err) = %q shows the key", verb, out)
		}
	}
}

func hexOf(s string) string { return fmt.Sprintf("%x", s) }

// TestSiteURLFromEnv: without WithSiteURL the client reads SVC_SITE_URL, as
// the svc command does, so the README's example runs against a local
// server; WithSiteURL wins over it, and an invalid value names the variable.
func TestSiteURLFromEnv(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.URL.Path
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data":[],"meta":{"source":"stored_snapshot","limit":50,"offset":0,"nextOffset":null,"returned":0,"dataAsOf":""}}`)
	}))
	defer srv.Close()
	t.Setenv(SiteURLEnv, srv.URL+"/prefix/")
	c, err := NewClient(WithAPIKey(zeroKey))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Accounts.List(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if got != testAPIPath+"/accounts" {
		t.Errorf("request went to %q, want %q", got, testAPIPath+"/accounts")
	}
	c, err = NewClient(WithAPIKey(zeroKey), WithSiteURL("https://other.example"))
	if err != nil || c.cfg.site.String() != "https://other.example" {
		t.Errorf("WithSiteURL with SVC_SITE_URL set: site %v, err %v", c, err)
	}
	t.Setenv(SiteURLEnv, "http://api.example.com")
	_, err = NewClient(WithAPIKey(zeroKey))
	if !errors.Is(err, ErrInvalidSiteURL) || !strings.Contains(err.Error(), SiteURLEnv) {
		t.Errorf("invalid SVC_SITE_URL: %v, want ErrInvalidSiteURL naming %s", err, SiteURLEnv)
	}
}
