//go:build !svctest

package cmdutil

import (
	"time"

	svc "github.com/adsnap/svc/sdk-go"
)

// requestTimeout is the per-request timeout: always 15 s in release builds.
func requestTimeout(func(string) string) time.Duration { return svc.DefaultTimeout }

// retryBackoff is 0 in release builds: the SDK's default (1 s, doubling).
func retryBackoff(func(string) string) time.Duration { return 0 }
