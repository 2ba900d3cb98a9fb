package svc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

const (
	// DefaultSiteURL is the site the client talks to unless WithSiteURL
	// or SVC_SITE_URL names another one.
	DefaultSiteURL = "https://adsnap.example"
	// APIPath is the path of the API below the site URL.
	APIPath = "/api/v1/developer"
	// APIKeyEnv is the environment variable WithAPIKeyFromEnv reads.
	APIKeyEnv = "SVC_API_KEY"
	// SiteURLEnv is the environment variable NewClient reads for the site
	// when WithSiteURL is not given, as the svc command does.
	SiteURLEnv = "SVC_SITE_URL"
	// DefaultTimeout bounds each HTTP request, including reading its body.
	DefaultTimeout = 15 * time.Second
	// MaxRateLimitJitter is the most that is added at random to the
	// Retry-After wait, so that throttled clients do not return in step.
	MaxRateLimitJitter = 5 * time.Second

	// maxBody bounds a success body. A full page of 100 insight rows is a
	// few tens of kilobytes.
	maxBody = 16 << 20
)

// Client is a client of the snapshot developer API. Create it with
// [NewClient]; it is safe for concurrent use. Its string forms never contain
// the API key.
type Client struct {
	// Accounts reads ad account snapshots.
	Accounts *AccountsService
	// Campaigns reads campaign snapshots.
	Campaigns *CampaignsService
	// Insights reads daily insight snapshots.
	Insights *InsightsService

	cfg   config
	pacer *pacer
}

// config is what the options fill in. The key is held by an apiKey
// closure, which no form of printing can show.
type config struct {
	key        apiKey
	site       *url.URL
	base       *url.URL
	httpClient *http.Client
	timeout    time.Duration
	userAgent  string
	maxRetries int
	retriesSet bool
	now        func() time.Time
	jitter     func() time.Duration
	retryBase  time.Duration
	hooks      Hooks
	cache      *pageCache // WithPageCache; nil: off
}

// Option configures a [Client]; see the With… functions.
type Option func(*config) error

// WithAPIKey sets the developer key. NewClient checks its format and
// checksum before it is ever sent; the key is sent only in the Authorization
// header.
func WithAPIKey(key string) Option {
	return func(c *config) error {
		c.key = newAPIKey(key)
		return nil
	}
}

// WithAPIKeyFromEnv reads the developer key from the SVC_API_KEY environment
// variable. It is never read implicitly.
func WithAPIKeyFromEnv() Option {
	return func(c *config) error {
		v, ok := os.LookupEnv(APIKeyEnv)
		if !ok || v == "" {
			return fmt.Errorf("svc: %w: %s is not set", ErrMissingAPIKey, APIKeyEnv)
		}
		c.key = newAPIKey(v)
		return nil
	}
}

// WithSiteURL sets the site that serves the API, such as
// "https://adsnap.example" (the default, DefaultSiteURL) or
// "http://127.0.0.1:8080/prefix"; requests go to <site URL>/api/v1/developer.
// The scheme must be https, or http when the host is a loopback address or
// localhost. User information, a query and a fragment are refused. A site URL
// that already ends in /api/v1/developer is accepted as well.
func WithSiteURL(siteURL string) Option {
	return func(c *config) error {
		u, err := parseSiteURL(siteURL)
		if err != nil {
			return err
		}
		c.site = u
		return nil
	}
}

// WithHTTPClient makes the client send its requests through hc, for its
// transport, proxy or TLS settings. hc is not modified: the client uses a
// copy that still refuses redirects.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) error {
		if hc == nil {
			return errors.New("svc: WithHTTPClient: the http client is nil")
		}
		c.httpClient = hc
		return nil
	}
}

// WithTimeout sets how long each HTTP request may take, including reading
// its body; the default is DefaultTimeout (15 s). It bounds every request
// separately, not a whole All iteration.
func WithTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("svc: WithTimeout: the timeout must be positive, not %s", d)
		}
		c.timeout = d
		return nil
	}
}

// WithUserAgentSuffix appends suffix, such as "svc-cli/1.2.0", to the
// User-Agent header "svc-sdk-go/<Version>".
func WithUserAgentSuffix(suffix string) Option {
	return func(c *config) error {
		for _, r := range suffix {
			if r < ' ' || r > '~' {
				return errors.New("svc: WithUserAgentSuffix: the suffix may contain only printable ASCII characters")
			}
		}
		c.userAgent = strings.TrimSpace(userAgent + " " + suffix)
		return nil
	}
}

// UserAgentProduct returns "name/version" for [WithUserAgentSuffix], such
// as "svc-cli/1.2.0": the characters a User-Agent product cannot hold
// (anything but printable ASCII, and spaces) are left out of version, and a
// version left empty is "unknown". The command-line client and the MCP
// server name themselves with it.
func UserAgentProduct(name, version string) string {
	b := make([]byte, 0, len(version))
	for i := 0; i < len(version); i++ {
		if version[i] > ' ' && version[i] <= '~' {
			b = append(b, version[i])
		}
	}
	if len(b) == 0 {
		return name + "/unknown"
	}
	return name + "/" + string(b)
}

// WithRetryOnRateLimit makes the client wait and retry, at most maxRetries
// times per request, when the service answers 429. Each wait is the
// Retry-After of the answer (60 s when absent) plus 0 to 5 s of random
// jitter; it ends early, with an error, when the context is done. Without
// this option, List returns a 429 at once as an [*APIError], and the
// iterators (All, Pages) wait and retry up to 3 times, going on from where
// they were; WithRetryOnRateLimit(0) makes them fail at once too.
func WithRetryOnRateLimit(maxRetries int) Option {
	return func(c *config) error {
		if maxRetries < 0 {
			return fmt.Errorf("svc: WithRetryOnRateLimit: maxRetries must not be negative, not %d", maxRetries)
		}
		c.maxRetries = maxRetries
		c.retriesSet = true
		return nil
	}
}

// WithRetryBackoff sets the first wait before retrying a request that
// failed with a connection error or a 502, 503 or 504 answer (1 s by
// default; it doubles at each try, with jitter, for at most MaxTries tries).
// Zero turns these retries off.
func WithRetryBackoff(first time.Duration) Option {
	return func(c *config) error {
		if first < 0 {
			return fmt.Errorf("svc: WithRetryBackoff: the backoff must not be negative, not %s", first)
		}
		c.retryBase = first
		return nil
	}
}

const userAgent = "svc-sdk-go/" + Version

// NewClient returns a client configured by opts. A key must be given with
// [WithAPIKey] or [WithAPIKeyFromEnv]; it is checked with [ValidateAPIKey]
// before anything is sent. The site is the one of [WithSiteURL], else the
// SVC_SITE_URL environment variable when it is set, else [DefaultSiteURL].
func NewClient(opts ...Option) (*Client, error) {
	cfg := config{
		timeout:   DefaultTimeout,
		userAgent: userAgent,
		now:       time.Now,
		jitter:    func() time.Duration { return rand.N(MaxRateLimitJitter + 1) },
		retryBase: defaultRetryBase,
	}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.site == nil {
		site, err := parseSiteURL(DefaultSiteURL)
		if v := os.Getenv(SiteURLEnv); v != "" {
			if site, err = parseSiteURL(v); err != nil {
				return nil, fmt.Errorf("%w (from %s)", err, SiteURLEnv)
			}
		}
		if err != nil {
			return nil, err
		}
		cfg.site = site
	}
	if cfg.key == nil {
		return nil, fmt.Errorf("svc: %w: use WithAPIKey or WithAPIKeyFromEnv", ErrMissingAPIKey)
	}
	if err := ValidateAPIKey(cfg.key()); err != nil {
		return nil, err
	}

	hc := &http.Client{}
	if cfg.httpClient != nil {
		copied := *cfg.httpClient
		hc = &copied
	}
	// Never follow a redirect: answer with the 3xx, which do reports.
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	cfg.httpClient = hc
	cfg.base = cfg.site.JoinPath(APIPath)

	c := &Client{cfg: cfg, pacer: newPacer()}
	c.Accounts = &AccountsService{client: c}
	c.Campaigns = &CampaignsService{client: c}
	c.Insights = &InsightsService{client: c}
	return c, nil
}

// parseSiteURL validates a site URL. Its errors never quote the URL, which
// could hold a credential by mistake.
func parseSiteURL(s string) (*url.URL, error) {
	bad := func(why string) error { return fmt.Errorf("svc: %w: %s", ErrInvalidSiteURL, why) }
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return nil, bad("it cannot be parsed")
	case u.User != nil:
		return nil, bad("it must not contain user information")
	case u.RawQuery != "" || u.ForceQuery:
		return nil, bad("it must not contain a query")
	case u.Fragment != "" || strings.Contains(s, "#"):
		return nil, bad("it must not contain a fragment")
	case u.Opaque != "" || u.Host == "" || u.Hostname() == "":
		return nil, bad("it must be an absolute URL such as https://adsnap.example")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !isLoopback(u.Hostname()) {
			return nil, bad(fmt.Sprintf("http is allowed only to a loopback host, not %q; use https", u.Hostname()))
		}
	default:
		return nil, bad("the scheme must be https (or http to a loopback host)")
	}
	// Keep the path as a prefix; drop a trailing slash and an API path
	// given by mistake.
	site := &url.URL{Scheme: u.Scheme, Host: u.Host}
	path := strings.TrimRight(u.EscapedPath(), "/")
	path = strings.TrimSuffix(path, APIPath)
	if path != "" {
		site = site.JoinPath(path)
	}
	return site, nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// String describes the client without its key.
func (c Client) String() string {
	site := "<nil>"
	if c.cfg.site != nil {
		site = c.cfg.site.String()
	}
	return fmt.Sprintf("svc.Client{site: %s, key: %s, timeout: %s, retryOnRateLimit: %d}",
		site, redacted, c.cfg.timeout, c.cfg.maxRetries)
}

// GoString describes the client without its key, for %#v.
func (c Client) GoString() string { return "&" + c.String() }

// Format writes String for every verb (GoString for %#v), so that no verb
// can print the key.
func (c Client) Format(f fmt.State, verb rune) {
	s := c.String()
	switch {
	case verb == 'v' && f.Flag('#'):
		s = c.GoString()
	case verb == 'q':
		s = strconv.Quote(s)
	}
	_, _ = io.WriteString(f, s)
}

// String describes the configuration without its key.
func (c config) String() string { return Client{cfg: c}.String() }

// GoString describes the configuration without its key.
func (c config) GoString() string { return Client{cfg: c}.GoString() }

// Format prints the configuration without its key for every verb.
func (c config) Format(f fmt.State, verb rune) { Client{cfg: c}.Format(f, verb) }

// get sends GET base+endpoint?query and decodes a success body into out.
// It paces the request by the rate-limit headers of earlier answers, waits
// and retries on 429 (when the client is configured to, or always for bulk
// reads), and retries connection errors and 502/503/504 answers with
// exponential backoff and jitter, at most MaxTries times in all. Every wait
// ends early, with an error, when ctx is done; each try is bounded by the
// client's timeout.
func (c *Client) get(ctx context.Context, endpoint string, query url.Values, out any, bulk bool) (*Response, error) {
	u := c.cfg.base.JoinPath(endpoint)
	u.RawQuery = query.Encode()
	op := "GET " + endpoint
	rateRetries := c.cfg.maxRetries
	if bulk && !c.cfg.retriesSet {
		rateRetries = max(rateRetries, bulkRateLimitRetries)
	}
	limited, tries := 0, 0
	for {
		if d := c.pacer.reserve(time.Now()); d > 0 {
			c.notifyWait(ctx, Wait{Endpoint: op, Duration: d, Reason: WaitPacing})
			if err := sleep(ctx, d); err != nil {
				return nil, fmt.Errorf("svc: %s: waiting for the rate limit: %w", op, err)
			}
		}
		tries++
		resp, transient, err := c.do(ctx, op, u.String(), out)
		if resp != nil {
			c.pacer.observe(time.Now(), resp.RateLimits)
		}
		if err == nil {
			return resp, nil
		}
		apiErr, isAPI := errors.AsType[*APIError](err)
		var wait time.Duration
		switch {
		case isAPI && apiErr.StatusCode == http.StatusTooManyRequests:
			if limited >= rateRetries {
				return nil, err
			}
			limited++
			tries-- // a 429 is not a failed try
			wait = apiErr.RetryAfter + c.cfg.jitter()
			c.notifyWait(ctx, Wait{Endpoint: op, Duration: wait, Reason: WaitRateLimited, Err: err})
		case transient && tries < MaxTries && c.cfg.retryBase > 0:
			// Full jitter over an exponential ceiling (retryBase, 2×, 4×…),
			// or the answer's Retry-After when it is longer and reasonable.
			ceiling := c.cfg.retryBase << (tries - 1)
			wait = ceiling/2 + time.Duration(rand.Int64N(int64(ceiling/2)+1))
			if isAPI && apiErr.RetryAfter > wait && apiErr.RetryAfter <= maxRetryAfterOnFailure {
				wait = apiErr.RetryAfter
			}
			c.notifyWait(ctx, Wait{Endpoint: op, Duration: wait, Reason: WaitRetry, Err: err})
		default:
			return nil, err
		}
		if werr := sleep(ctx, wait); werr != nil {
			return nil, fmt.Errorf("%w; stopped waiting to retry: %w", err, werr)
		}
	}
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// do sends one request, bounded by the client's timeout. resp is the
// answer's metadata when there was an answer; transient reports a failure
// worth another try: a connection error (not a time-out) or a 502, 503 or
// 504 answer.
func (c *Client) do(parent context.Context, op, rawURL string, out any) (resp *Response, transient bool, err error) {
	ctx, cancel := context.WithTimeout(parent, c.cfg.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, false, fmt.Errorf("svc: %s: building the request: %w", op, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.cfg.key())
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.cfg.userAgent)
	req.Header.Set("Accept-Encoding", acceptEncoding)
	kept := c.cfg.cache.get(rawURL)
	if kept != nil {
		req.Header.Set("If-None-Match", kept.etag)
	}

	hresp, err := c.cfg.httpClient.Do(req)
	if err != nil {
		return nil, parent.Err() == nil && ctx.Err() == nil, c.requestError(parent, ctx, op, err)
	}
	defer hresp.Body.Close()
	resp = newResponse(hresp, c.cfg.key())
	if hresp.StatusCode < 200 || hresp.StatusCode >= 300 {
		c.notifyResponse(parent, resp)
	}

	switch {
	case hresp.StatusCode == http.StatusNotModified && kept != nil:
		return resp, false, c.decode(parent, op, resp, hresp.StatusCode, kept.body, out)
	case hresp.StatusCode >= 300 && hresp.StatusCode < 400:
		host := "(no Location header)"
		if loc, err := hresp.Location(); err == nil {
			host = strconv.Quote(loc.Host)
		}
		return resp, false, fmt.Errorf("svc: %s: %w: the server answered %d pointing to host %s, and the client never follows redirects",
			op, ErrRedirectRefused, hresp.StatusCode, host)
	case hresp.StatusCode < 200 || hresp.StatusCode >= 300:
		switch hresp.StatusCode {
		case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			transient = true
		}
		return resp, transient, newAPIError(op, hresp, c.cfg.now(), c.cfg.key())
	}

	body, err := readBody(hresp, maxBody)
	if errors.Is(err, errBadEncoding) {
		return resp, false, fmt.Errorf("svc: %s: %w", op, err)
	}
	if err != nil {
		return resp, parent.Err() == nil && ctx.Err() == nil, c.requestError(parent, ctx, op, err)
	}
	if len(body) > maxBody {
		return resp, false, fmt.Errorf("svc: %s: the response body is larger than %d bytes", op, maxBody)
	}
	if err := c.decode(parent, op, resp, hresp.StatusCode, body, out); err != nil {
		return resp, false, err
	}
	c.cfg.cache.put(rawURL, weakTag(hresp), body)
	return resp, false, nil
}

// weakTag is the answer's ETag when it is weak (the service's), else "".
func weakTag(resp *http.Response) string {
	if t := resp.Header.Get("ETag"); strings.HasPrefix(t, `W/"`) {
		return t
	}
	return ""
}

// decode decodes a success body (or, for a 304, the kept one) into out and
// reports the answer to the hooks.
func (c *Client) decode(parent context.Context, op string, resp *Response, status int, body []byte, out any) error {
	if err := json.Unmarshal(body, out); err != nil {
		if strings.Contains(err.Error(), c.cfg.key()) {
			// A value quoted by the decoder holds the key: say less.
			err = errors.New("invalid value")
		}
		return fmt.Errorf("svc: %s: decoding the %d-byte response body (status %d): %w",
			op, len(body), status, err)
	}
	if m, ok := out.(interface{ meta() *Meta }); ok {
		resp.Meta = m.meta()
	}
	c.notifyResponse(parent, resp)
	return nil
}

// requestError reports a failure to send or read a request. It says when
// the per-request timeout fired, and drops the *url.Error wrapper so that
// the message names the endpoint, not the full URL.
func (c *Client) requestError(parent, ctx context.Context, op string, err error) error {
	if perr := parent.Err(); perr != nil {
		return fmt.Errorf("svc: %s: %w", op, perr)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("svc: %s: no complete answer within %s: %w", op, c.cfg.timeout, context.DeadlineExceeded)
	}
	if ue, ok := errors.AsType[*url.Error](err); ok {
		err = ue.Err
	}
	return fmt.Errorf("svc: %s: %w", op, err)
}
