package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adsnap/svc/e2e/internal/harness"
)

// burst sends n GET /accounts with key, 8 at a time, alternating between
// replicas, and returns how many succeeded, the first refusal, and how long
// the burst took. Sending concurrently keeps the burst short: GCRA refills a
// bucket continuously (one request per minute/limit), so a slow burst is
// allowed a little more.
func (e *env) burst(t *testing.T, replicas []*harness.Server, client *http.Client, key string, n int) (ok int, refused *http.Response, refusedBody []byte, took time.Duration) {
	t.Helper()
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		next atomic.Int64
		errs []error
	)
	start := time.Now()
	for range 8 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				resp, body, err := harness.Get(t.Context(), client, replicas[i%2].URL+"/api/v1/developer/accounts?limit=1", key)
				mu.Lock()
				switch {
				case err != nil:
					errs = append(errs, err)
				case resp.StatusCode == http.StatusOK:
					ok++
				case resp.StatusCode == http.StatusTooManyRequests:
					if refused == nil {
						refused, refusedBody = resp, body
					}
				default:
					errs = append(errs, fmt.Errorf("request %d: %d %s", i, resp.StatusCode, body))
				}
				if resp != nil {
					e.rec.response(resp, body)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	took = time.Since(start)
	for _, err := range errs {
		t.Error(err)
	}
	return ok, refused, refusedBody, took
}

// refill is how many requests GCRA adds back to a bucket of limit per minute
// within d: one every minute/limit.
func refill(limit int, d time.Duration) int { return int(d / (time.Minute / time.Duration(limit))) }

// checkRefusal checks a 429: Retry-After 60, the rate-limit headers, and a
// message that names the bucket.
func checkRefusal(t *testing.T, resp *http.Response, body []byte, bucket, word string) {
	t.Helper()
	if resp == nil {
		t.Fatalf("no request was refused by the %s bucket", bucket)
	}
	if got := resp.Header.Get("Retry-After"); got != "60" {
		t.Errorf("Retry-After = %q, want 60", got)
	}
	if p := resp.Header.Get("RateLimit-Policy"); !strings.Contains(p, `"key";q=60;w=60`) || !strings.Contains(p, `"org";q=120;w=60`) || !strings.Contains(p, `"ip";q=180;w=60`) {
		t.Errorf("RateLimit-Policy = %q", p)
	}
	if rl := resp.Header.Get("RateLimit"); !strings.HasPrefix(rl, `"`+bucket+`";r=0;t=`) {
		t.Errorf("RateLimit = %q, want the %s bucket with r=0", rl, bucket)
	}
	var eb struct {
		StatusCode int `json:"statusCode"`
		Message    any `json:"message"`
	}
	if json.Unmarshal(body, &eb) != nil || eb.StatusCode != 429 {
		t.Errorf("429 body %s", body)
	}
	if msg, _ := eb.Message.(string); !strings.Contains(msg, word) || !strings.Contains(msg, "60 seconds") {
		t.Errorf("429 message %q does not name the %s bucket and the wait", msg, word)
	}
}

func testRateLimits(t *testing.T, e *env) {
	t.Run("burst then pacing", func(t *testing.T) { testBurstThenPacing(t, e) })
	t.Run("per key, across replicas", func(t *testing.T) {
		replicas := e.startDefaultLimitReplicas(t)
		ok, refused, body, took := e.burst(t, replicas, harness.ClientFrom("127.0.0.21"), e.keys["alpha_aci"], 75)
		t.Logf("%d of 75 requests succeeded in %s", ok, took)
		if ok < 60 || ok > 60+refill(60, took) {
			t.Errorf("%d successes in %s, want exactly 60 (plus at most %d refilled)", ok, took, refill(60, took))
		}
		checkRefusal(t, refused, body, "key", "per-key")
	})
	t.Run("per organization, two keys and a third", func(t *testing.T) {
		replicas := e.startDefaultLimitReplicas(t)
		client := harness.ClientFrom("127.0.0.22")
		start := time.Now()
		ok1, r1, _, _ := e.burst(t, replicas, client, e.keys["beta"], 60)
		ok2, r2, _, _ := e.burst(t, replicas, client, e.keys["beta2"], 60)
		if ok1 != 60 || ok2 != 60 || r1 != nil || r2 != nil {
			t.Fatalf("two keys of one organization got %d + %d successes, want 60 + 60", ok1, ok2)
		}
		ok3, refused, body, _ := e.burst(t, replicas, client, e.keys["beta3"], 10)
		took := time.Since(start)
		t.Logf("120 then %d of 10 succeeded in %s", ok3, took)
		if ok3 > refill(120, took) {
			t.Errorf("a third key got %d successes after 120 in %s; at most %d refilled", ok3, took, refill(120, took))
		}
		checkRefusal(t, refused, body, "org", "per-organization")
		// Another organization is not affected.
		if ok, _, _, _ := e.burst(t, replicas, client, e.keys["gamma"], 1); ok != 1 {
			t.Error("another organization was refused")
		}
	})
	t.Run("per IP, three organizations and a fourth key", func(t *testing.T) {
		replicas := e.startDefaultLimitReplicas(t)
		client := harness.ClientFrom("127.0.0.23")
		start := time.Now()
		for _, k := range []string{"alpha_aci", "beta", "gamma"} {
			if ok, refused, body, _ := e.burst(t, replicas, client, e.keys[k], 60); ok != 60 || refused != nil {
				t.Fatalf("key %s: %d of 60 before the IP bucket was full: %s", k, ok, body)
			}
		}
		ok, refused, body, _ := e.burst(t, replicas, client, e.keys["alpha_a"], 12)
		took := time.Since(start)
		t.Logf("180 then %d of 12 succeeded in %s", ok, took)
		if ok > refill(180, took) {
			t.Errorf("a fourth key got %d successes after 180 from one IP in %s; at most %d refilled", ok, took, refill(180, took))
		}
		checkRefusal(t, refused, body, "ip", "per-IP")
		// Another IP is not affected.
		if ok, _, _, _ := e.burst(t, replicas, harness.ClientFrom("127.0.0.24"), e.keys["alpha_a"], 1); ok != 1 {
			t.Error("another IP was refused")
		}
	})
}
