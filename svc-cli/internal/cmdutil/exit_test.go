package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	svc "github.com/adsnap/svc/sdk-go"
)

func TestExitFor(t *testing.T) {
	t.Parallel()
	api := func(status int, msgs ...string) error {
		return fmt.Errorf("wrapped: %w", &svc.APIError{Endpoint: "GET /accounts", StatusCode: status, Messages: msgs, RetryAfter: 60 * time.Second})
	}
	tests := []struct {
		name string
		err  error
		code ExitCode
		msg  string
	}{
		{"nil", nil, ExitOK, ""},
		{"flag", FlagErrorf("unknown flag: --x"), ExitUsage, "unknown flag: --x"},
		{"validation", &svc.ValidationError{Problems: []string{"a", "b"}}, ExitUsage, "invalid request, no request was made: a; b"},
		{"missing key", fmt.Errorf("svc: %w: SVC_API_KEY is not set", svc.ErrMissingAPIKey), ExitAuth,
			"no API key: set SVC_API_KEY, or pass --key-stdin and write the key on standard input"},
		{"malformed key", svc.ValidateAPIKey("svc_live_x"), ExitAuth,
			"the API key is malformed, so no request was made: the key must be 52 characters long, not 10"},
		{"key error", KeyErrorf("no key here"), ExitAuth, "no key here"},
		{"verify", fmt.Errorf("wrapped: %w", VerifyErrorf("x.tgz: SHA-256 mismatch")), ExitInvalid, "x.tgz: SHA-256 mismatch"},
		{"401", api(http.StatusUnauthorized, "bad key"), ExitAuth,
			"the API key was refused (401 Unauthorized: bad key): it is unknown, revoked or expired; create a key in the settings UI (Developer keys)"},
		{"403", api(http.StatusForbidden, "scope"), ExitAuth,
			"access denied (403 Forbidden: scope): the key lacks the scope for this command, or its issuer is no longer an owner or administrator of the organization"},
		{"404", api(http.StatusNotFound, "account not found"), ExitNotFound, "not found (404 Not Found: account not found)"},
		{"429", api(http.StatusTooManyRequests, "key bucket"), ExitRateLimited,
			"rate limited (429 Too Many Requests: key bucket): wait 60 seconds before retrying, or pass --wait"},
		{"503", api(http.StatusServiceUnavailable, "down"), ExitUnavailable, "the service is unavailable (503 Service Unavailable: down); try again later"},
		{"502", api(http.StatusBadGateway), ExitUnavailable, "the service is unavailable (502 Bad Gateway); try again later"},
		{"400", api(http.StatusBadRequest, "x", "y"), ExitUsage, "the service rejected the request (400 Bad Request: x; y)"},
		{"500", &svc.APIError{StatusCode: 500, RequestID: "r1"}, ExitError, "the service answered 500 Internal Server Error, request id r1"},
		{"redirect", fmt.Errorf("svc: GET /accounts: %w: to host x", svc.ErrRedirectRefused), ExitError,
			"GET /accounts: redirect refused: to host x; check SVC_SITE_URL (svc only talks to the site it was given)"},
		{"timeout", fmt.Errorf("svc: GET /x: no complete answer within 15s: %w", context.DeadlineExceeded), ExitUnavailable,
			"timed out: GET /x: no complete answer within 15s: context deadline exceeded"},
		{"canceled", fmt.Errorf("svc: GET /x: %w", context.Canceled), ExitError, "interrupted"},
		{"refused", fmt.Errorf("svc: GET /x: %w", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}), ExitUnavailable,
			"network failure: GET /x: dial tcp: connection refused"},
		{"other", errors.New("boom"), ExitError, "boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, msg := ExitFor(tt.err)
			if code != tt.code || msg != tt.msg {
				t.Errorf("ExitFor = %d, %q\nwant      %d, %q", code, msg, tt.code, tt.msg)
			}
		})
	}
}

// TestTLSFailureIsNetworkFailure: a TLS failure, such as a certificate no
// authority vouches for, exits with the network code and says it is TLS.
func TestTLSFailureIsNetworkFailure(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	c, err := svc.NewClient(svc.WithAPIKey("svc_live_00000000000000000000000000000000000001w1XY4"), svc.WithSiteURL(srv.URL),
		svc.WithRetryBackoff(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Accounts.List(t.Context(), nil)
	code, msg := ExitFor(err)
	if code != ExitUnavailable || !strings.Contains(msg, "TLS") || !strings.Contains(msg, "SVC_SITE_URL") {
		t.Errorf("ExitFor(%v) = %d %q, want %d naming TLS and SVC_SITE_URL", err, code, msg, ExitUnavailable)
	}
}
