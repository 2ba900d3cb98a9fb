package server

import (
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
)

func TestIPRefusals(t *testing.T) {
	t.Parallel()
	r := newIPRefusals()
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	refused := ratelimit.Result{Limit: ratelimit.PerMinute("ip", 180), Allowed: false, RetryAfter: 300 * time.Millisecond, ResetAfter: 60 * time.Second}

	if _, ok := r.get("1.2.3.4", t0); ok {
		t.Fatal("a refusal before any was recorded")
	}
	r.put("1.2.3.4", ratelimit.Result{Allowed: true, RetryAfter: time.Second}, t0)
	if _, ok := r.get("1.2.3.4", t0); ok {
		t.Fatal("an allowed result was remembered as a refusal")
	}
	r.put("1.2.3.4", refused, t0)
	got, ok := r.get("1.2.3.4", t0.Add(100*time.Millisecond))
	if !ok || got.Allowed || got.RetryAfter != 200*time.Millisecond || got.ResetAfter != 60*time.Second-100*time.Millisecond {
		t.Fatalf("100 ms later: %+v %v", got, ok)
	}
	if _, ok := r.get("1.2.3.5", t0); ok {
		t.Fatal("another IP is refused")
	}
	if _, ok := r.get("1.2.3.4", t0.Add(300*time.Millisecond)); ok {
		t.Fatal("still refused when the bucket has room again")
	}
	if _, ok := r.get("1.2.3.4", t0.Add(-time.Millisecond)); ok {
		t.Fatal("refused before the refusal (clock went back)")
	}
	// Run-out refusals are forgotten, at every 1024th refusal recorded.
	for i := range 1022 {
		r.put("10.0.0."+string(rune('a'+i%26)), refused, t0)
	}
	r.put("10.0.1.1", refused, t0.Add(time.Second))
	if n := len(r.until); n != 1 {
		t.Errorf("%d refusals kept after they ran out, want 1", n)
	}
}
