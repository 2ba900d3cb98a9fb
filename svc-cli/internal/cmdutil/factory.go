package cmdutil

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	svc "github.com/adsnap/svc/sdk-go"

	"github.com/adsnap/svc/svc-cli/internal/build"
	"github.com/adsnap/svc/svc-cli/internal/iostreams"
)

// SiteURLEnv is the environment variable that overrides the built-in site.
const SiteURLEnv = "SVC_SITE_URL"

// RetriesOnWait is how many times --wait retries a request answered with 429.
const RetriesOnWait = 3

// Factory gives commands what they need from the outside world. Tests build
// one with fake streams, their own environment and a short timeout.
type Factory struct {
	// IOStreams are the command's streams.
	IOStreams *iostreams.IOStreams
	// Getenv reads an environment variable (os.Getenv outside tests).
	Getenv func(string) string
	// Timeout bounds each HTTP request (svc.DefaultTimeout, 15 s).
	Timeout time.Duration
	// HTTPClient, when set, sends the requests (tests only).
	HTTPClient *http.Client
	// RetryBackoff, when set, is the first wait before retrying a 502, 503,
	// 504 or a connection error (tests only; svc.WithRetryBackoff); zero
	// is the SDK's default.
	RetryBackoff time.Duration
}

// New returns the Factory of the running process.
func New(ios *iostreams.IOStreams) *Factory {
	return &Factory{
		IOStreams: ios,
		Getenv:    os.Getenv,
		Timeout:   svc.DefaultTimeout,
	}
}

// SiteURL returns the site the API is read from: SVC_SITE_URL when set,
// else the one built into the binary.
func (f *Factory) SiteURL() string {
	if v := f.Getenv(SiteURLEnv); v != "" {
		return v
	}
	return build.SiteURL()
}

// ClientOptions are the per-command choices that shape the API client.
type ClientOptions struct {
	// KeyStdin reads the key from the first line of standard input instead
	// of SVC_API_KEY.
	KeyStdin bool
	// Wait waits and retries (at most RetriesOnWait times) on 429.
	Wait bool
	// Hooks receive every answer and every wait (progress, key expiry).
	Hooks svc.Hooks
}

// Client returns an API client. The key comes from SVC_API_KEY, or from the
// first line of standard input with KeyStdin (read without echo on a
// terminal); it is checked before any request and is never printed or
// saved. ctx ends the reading of standard input (Ctrl-C).
func (f *Factory) Client(ctx context.Context, o ClientOptions) (*svc.Client, error) {
	var key string
	if o.KeyStdin {
		k, err := f.readKey(ctx)
		if err != nil {
			return nil, err
		}
		key = k
	} else {
		key = f.Getenv(svc.APIKeyEnv)
		if key == "" {
			return nil, fmt.Errorf("%w: %s is not set", svc.ErrMissingAPIKey, svc.APIKeyEnv)
		}
	}
	if err := svc.ValidateAPIKey(key); err != nil {
		return nil, err
	}
	opts := []svc.Option{
		svc.WithAPIKey(key),
		svc.WithSiteURL(f.SiteURL()),
		svc.WithUserAgentSuffix(svc.UserAgentProduct("svc-cli", build.Version())),
	}
	if f.Timeout > 0 {
		opts = append(opts, svc.WithTimeout(f.Timeout))
	}
	if f.HTTPClient != nil {
		opts = append(opts, svc.WithHTTPClient(f.HTTPClient))
	}
	if f.RetryBackoff > 0 {
		opts = append(opts, svc.WithRetryBackoff(f.RetryBackoff))
	}
	if o.Wait {
		opts = append(opts, svc.WithRetryOnRateLimit(RetriesOnWait))
	}
	opts = append(opts, svc.WithHooks(o.Hooks))
	return svc.NewClient(opts...)
}

// SDKOptions returns the options every client of svc shares (site,
// timeout, user agent), for `svc mcp`, which reads the key itself.
func (f *Factory) SDKOptions() []svc.Option {
	opts := []svc.Option{svc.WithUserAgentSuffix(svc.UserAgentProduct("svc-cli", build.Version()))}
	if f.Timeout > 0 {
		opts = append(opts, svc.WithTimeout(f.Timeout))
	}
	return opts
}

// readKey reads the first line of standard input, trimmed. On a terminal
// the line is read without echo, so that the pasted key is not shown (nor
// left in the terminal's scrollback); from a pipe or a file it is read as
// it comes.
func (f *Factory) readKey(ctx context.Context) (string, error) {
	ios := f.IOStreams
	var line string
	if ios.CanReadSecret() {
		fmt.Fprintln(ios.ErrOut, "Paste the API key and press Enter; it is not shown (or pipe it: svc … --key-stdin < file):")
		b, err := ios.ReadSecret(ctx)
		fmt.Fprintln(ios.ErrOut) // the Enter was not echoed either
		if err != nil {
			if ctx.Err() != nil {
				return "", fmt.Errorf("--key-stdin: %w", ctx.Err())
			}
			return "", &KeyError{fmt.Errorf("--key-stdin: reading the terminal: %w", err)}
		}
		line = string(b)
	} else {
		if ios.IsStdinTTY() {
			fmt.Fprintln(ios.ErrOut, "Paste the API key and press Enter (prefer piping it: svc … --key-stdin < file):")
		}
		// Read at most one line, and not an unbounded amount of it.
		l, err := bufio.NewReaderSize(io.LimitReader(ios.In, 4096), 4096).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", &KeyError{fmt.Errorf("--key-stdin: reading standard input: %w", err)}
		}
		line = l
	}
	key := strings.TrimSpace(line)
	if key == "" {
		return "", &KeyError{errEmptyKey}
	}
	return key, nil
}
