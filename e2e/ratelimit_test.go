package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/adsnap/svc/e2e/internal/harness"
)

// burst sends n GET /accounts with key, alternating between replicas, and
// returns how many succeeded and the first refusal.
func (e *env) burst(t *testing.T, replicas []*harness.Server, client *http.Client, key string, n int) (ok int, refused *http.Response, refusedBody []byte) {
	t.Helper()
	for i := range n {
		resp, body := e.get(t, client, replicas[i%2].URL+"/api/v1/developer/accounts?limit=1", key)
		switch resp.StatusCode {
		case http.StatusOK:
			ok++
		case http.StatusTooManyRequests:
			if refused == nil {
				refused, refusedBody = resp, body
			}
		default:
			t.Fatalf("request %d: %d %s", i, resp.StatusCode, body)
		}
	}
	return ok, refused, refusedBody
}

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
	t.Run("per key, across replicas", func(t *testing.T) {
		replicas := e.startDefaultLimitReplicas(t)
		ok, refused, body := e.burst(t, replicas, harness.ClientFrom("127.0.0.21"), e.keys["alpha_aci"], 70)
		if ok != 60 {
			t.Errorf("%d successes in the minute, want exactly 60", ok)
		}
		checkRefusal(t, refused, body, "key", "per-key")
	})
	t.Run("per organization, two keys and a third", func(t *testing.T) {
		replicas := e.startDefaultLimitReplicas(t)
		client := harness.ClientFrom("127.0.0.22")
		ok1, r1, _ := e.burst(t, replicas, client, e.keys["beta"], 60)
		ok2, r2, _ := e.burst(t, replicas, client, e.keys["beta2"], 60)
		if ok1+ok2 != 120 || r1 != nil || r2 != nil {
			t.Fatalf("two keys got %d + %d successes, want 60 + 60", ok1, ok2)
		}
		ok3, refused, body := e.burst(t, replicas, client, e.keys["beta3"], 5)
		if ok3 != 0 {
			t.Errorf("a third key of the organization got %d successes after 120, want 0", ok3)
		}
		checkRefusal(t, refused, body, "org", "per-organization")
		// Another organization is not affected.
		if ok, _, _ := e.burst(t, replicas, client, e.keys["gamma"], 1); ok != 1 {
			t.Error("another organization was refused")
		}
	})
	t.Run("per IP, three organizations and a fourth key", func(t *testing.T) {
		replicas := e.startDefaultLimitReplicas(t)
		client := harness.ClientFrom("127.0.0.23")
		total := 0
		for _, k := range []string{"alpha_aci", "beta", "gamma"} {
			ok, refused, _ := e.burst(t, replicas, client, e.keys[k], 60)
			if refused != nil {
				t.Fatalf("key %s refused before the IP bucket was full", k)
			}
			total += ok
		}
		ok, refused, body := e.burst(t, replicas, client, e.keys["alpha_a"], 3)
		if total != 180 || ok != 0 {
			t.Errorf("%d successes from one IP, then %d more; want 180 then 0", total, ok)
		}
		checkRefusal(t, refused, body, "ip", "per-IP")
		// Another IP is not affected.
		if ok, _, _ := e.burst(t, replicas, harness.ClientFrom("127.0.0.24"), e.keys["alpha_a"], 1); ok != 1 {
			t.Error("another IP was refused")
		}
	})
}
