//go:build svctest

package cmdutil

import (
	"time"

	svc "github.com/adsnap/svc/sdk-go"
)

// requestTimeout is the per-request timeout. Only binaries built with
// -tags svctest (the scenario tests) read SVC_TEST_TIMEOUT, a Go duration
// such as "500ms"; release binaries always use 15 s.
func requestTimeout(getenv func(string) string) time.Duration {
	if d, err := time.ParseDuration(getenv("SVC_TEST_TIMEOUT")); err == nil && d > 0 {
		return d
	}
	return svc.DefaultTimeout
}

// retryBackoff is the SDK's first wait before retrying a request (0: the
// SDK's 1 s). Only binaries built with -tags svctest read SVC_TEST_BACKOFF,
// a Go duration such as "1ms", so that the scenario tests of 503 answers
// and unreachable sites do not wait seconds.
func retryBackoff(getenv func(string) string) time.Duration {
	if d, err := time.ParseDuration(getenv("SVC_TEST_BACKOFF")); err == nil && d > 0 {
		return d
	}
	return 0
}
