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
