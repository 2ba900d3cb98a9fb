package svc

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestRedirectRefused(t *testing.T) {
	t.Parallel()
	var followed atomic.Bool
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		followed.Store(true)
	}))
	t.Cleanup(elsewhere.Close)
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		c, srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, elsewhere.URL+"/steal?token=s3cret", status)
		}, WithHTTPClient(&http.Client{})) // a caller's client: redirects still refused
		_, err := c.Accounts.List(t.Context(), nil)
		if !errors.Is(err, ErrRedirectRefused) {
			t.Fatalf("%d: List = %v, want ErrRedirectRefused", status, err)
		}
		msg := err.Error()
		host := strings.TrimPrefix(elsewhere.URL, "http://")
		if !strings.Contains(msg, "redirect refused") || !strings.Contains(msg, `"`+host+`"`) {
			t.Errorf("%d: error %q should say the redirect was refused and name host %q", status, msg, host)
		}
		if strings.Contains(msg, "s3cret") || strings.Contains(msg, "/steal") {
			t.Errorf("%d: error %q repeats the Location path or query", status, msg)
		}
		if len(srv.requests()) != 1 {
			t.Errorf("%d: %d requests, want 1", status, len(srv.requests()))
		}
	}
	if followed.Load() {
		t.Error("a redirect was followed")
	}
}

func TestTimeoutPerRequest(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		c := newFakeClient(t, func(r *http.Request) (*http.Response, error) {
			<-r.Context().Done() // a server that never answers
			return nil, r.Context().Err()
		})
		_, err := c.Accounts.List(t.Context(), nil)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("List = %v, want context.DeadlineExceeded", err)
		}
		if got := time.Since(start); got != 15*time.Second {
			t.Errorf("gave up after %s, want 15s", got)
		}
		if !strings.Contains(err.Error(), "no complete answer within 15s") {
			t.Errorf("error %q should say the request timed out after 15s", err)
		}
	})
}

func TestTimeoutOption(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		c := newFakeClient(t, func(r *http.Request) (*http.Response, error) {
			<-r.Context().Done()
			return nil, r.Context().Err()
		}, WithTimeout(2*time.Second))
		_, err := c.Accounts.List(t.Context(), nil)
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 2*time.Second {
			t.Errorf("List = %v after %s, want a timeout after 2s", err, time.Since(start))
		}
	})
}

func TestTimeoutIsNotPerIteration(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		// Three pages of 10 s each: 30 s in all, but each request is
		// within its 15 s.
		c := newFakeClient(t, func(r *http.Request) (*http.Response, error) {
			time.Sleep(10 * time.Second)
			body := `{"data":[{"id":"a"}],"meta":{"nextOffset":` + map[string]string{"": "1", "1": "2", "2": "null"}[r.URL.Query().Get("offset")] + `}}`
			return response(r, http.StatusOK, nil, body), nil
		})
		n := 0
		for _, err := range c.Accounts.All(t.Context(), nil) {
			if err != nil {
				t.Fatalf("All: %v", err)
			}
			n++
		}
		if n != 3 || time.Since(start) != 30*time.Second {
			t.Errorf("%d rows after %s, want 3 after 30s", n, time.Since(start))
		}
	})
}

func TestParentContextCanceled(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		defer cancel()
		c := newFakeClient(t, func(r *http.Request) (*http.Response, error) {
			<-r.Context().Done()
			return nil, r.Context().Err()
		})
		_, err := c.Accounts.List(ctx, nil)
		if !errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "within 15s") {
			t.Errorf("List = %v, want the caller's deadline, not the client timeout", err)
		}
	})
}

// rateLimited answers 429 (with Retry-After retryAfter unless empty) the
// first times429 times, then 200, and records when each request came.
func rateLimited(times429 int, retryAfter string, at *[]time.Duration, start time.Time) roundTripFunc {
	n := 0
	return func(r *http.Request) (*http.Response, error) {
		*at = append(*at, time.Since(start))
		n++
		if n <= times429 {
			h := http.Header{}
			if retryAfter != "" {
				h.Set("Retry-After", retryAfter)
			}
			return response(r, http.StatusTooManyRequests, h, `{"statusCode":429,"message":"rate limit exceeded (key)"}`), nil
		}
		return response(r, http.StatusOK, nil, `{"data":[{"id":"acc_1"}],"meta":{"nextOffset":null}}`), nil
	}
}

func TestRateLimitOffByDefault(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var at []time.Duration
		c := newFakeClient(t, rateLimited(1, "", &at, time.Now()))
		_, err := c.Accounts.List(t.Context(), nil)
		apiErr, ok := errors.AsType[*APIError](err)
		if !ok || !IsRateLimited(err) || apiErr.RetryAfter != time.Minute {
			t.Fatalf("List = %v, want a 429 APIError with RetryAfter 60s", err)
		}
		if len(at) != 1 {
			t.Errorf("%d requests, want 1", len(at))
		}
	})
}

func TestRateLimitWaitAndRetry(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var at []time.Duration
		c := newFakeClient(t, rateLimited(2, "", &at, time.Now()), WithRetryOnRateLimit(3), withJitter(1500*time.Millisecond))
		page, err := c.Accounts.List(t.Context(), nil)
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		want := []time.Duration{0, 61500 * time.Millisecond, 123 * time.Second}
		if len(at) != len(want) || at[1] != want[1] || at[2] != want[2] || len(page.Data) != 1 {
			t.Errorf("requests at %v, want %v (60 s + 1.5 s jitter each)", at, want)
		}
	})
}

func TestRateLimitHonoursRetryAfterAndJitterBounds(t *testing.T) {
	t.Parallel()
	for range 20 {
		synctest.Test(t, func(t *testing.T) {
			var at []time.Duration
			c := newFakeClient(t, rateLimited(1, "7", &at, time.Now()), WithRetryOnRateLimit(1))
			if _, err := c.Accounts.List(t.Context(), nil); err != nil {
				t.Fatalf("List: %v", err)
			}
			if len(at) != 2 || at[1] < 7*time.Second || at[1] > 12*time.Second {
				t.Errorf("requests at %v, want the retry 7 s to 12 s after the first", at)
			}
		})
	}
}

func TestRateLimitRetriesExhausted(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var at []time.Duration
		c := newFakeClient(t, rateLimited(100, "60", &at, time.Now()), WithRetryOnRateLimit(2), withJitter(0))
		_, err := c.Accounts.List(t.Context(), nil)
		if !IsRateLimited(err) {
			t.Fatalf("List = %v, want the last 429", err)
		}
		if len(at) != 3 || at[2] != 2*time.Minute {
			t.Errorf("requests at %v, want 3 requests, the last at 2m0s", at)
		}
	})
}

func TestRateLimitWaitHonoursContext(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		var at []time.Duration
		c := newFakeClient(t, rateLimited(1, "60", &at, start), WithRetryOnRateLimit(5))
		_, err := c.Accounts.List(ctx, nil)
		if !IsRateLimited(err) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("List = %v, want the 429 and the context's deadline", err)
		}
		if len(at) != 1 || time.Since(start) != 30*time.Second {
			t.Errorf("%d requests, returned after %s; want 1 request and 30s", len(at), time.Since(start))
		}
	})
}
