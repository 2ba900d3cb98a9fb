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

// TestKeyRoll (issue 44): a client streams requests with key A across the
// two shared replicas while A is rolled with a grace of a few seconds
// (keys-admin roll). No request fails while the client moves to the new
// key B within the grace; once the grace has passed A gets 401 on every
// replica within 1 s of the end, on every request after; B keeps working.
// A roll with no grace makes the old key fail on the next request on every
// replica. Both replicas have resolved the keys before (they remember them
// with their key-state epoch), so the roll must reach what they remember.
func TestKeyRoll(t *testing.T) {
	e := setup(t)
	org, owner := harness.OrgGamma, e.fix.Owner[harness.OrgGamma]
	ka := func(args ...string) (string, string) {
		t.Helper()
		out, errOut, code, err := harness.Run(t.Context(), e.bin.KeysAdmin, []string{"SVC_DATABASE_URL=" + e.dbURL}, "", args...)
		if err != nil || code != 0 {
			t.Fatalf("keys-admin %s: exit %d %v\n%s", args[0], code, err, errOut)
		}
		return out, errOut
	}
	expiry := func(id string) time.Time {
		t.Helper()
		out, _ := ka("list", "--org", org, "--user", owner, "-o", "json")
		var list []struct {
			ID        string    `json:"id"`
			ExpiresAt time.Time `json:"expiresAt"`
		}
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatal(err)
		}
		for _, k := range list {
			if k.ID == id {
				return k.ExpiresAt
			}
		}
		t.Fatalf("no key %s in the list", id)
		return time.Time{}
	}
	roll := func(id, grace string) string {
		t.Helper()
		out, _ := ka("roll", "--org", org, "--user", owner, "--grace", grace, "--expires-in-days", "7", id)
		key := strings.TrimSpace(out)
		e.rec.secret(key)
		return key
	}
	client := harness.ClientFrom("127.0.0.44")
	status := func(replica int, key string) int {
		t.Helper()
		resp, _ := e.get(t, client, e.replicas[replica].URL+"/api/v1/developer/accounts?limit=1", key)
		return resp.StatusCode
	}
	keyA, idA, err := e.keysAdminCreate(t.Context(), keySpec{"roll_a", org, owner, "accounts:read"}, 30)
	if err != nil {
		t.Fatal(err)
	}
	for r := range e.replicas {
		if s := status(r, keyA); s != http.StatusOK {
			t.Fatalf("key A on replica %d: %d", r, s)
		}
	}

	// The stream: one request every 10 ms, alternating replicas, with the
	// key the client holds now.
	var current atomic.Pointer[string]
	current.Store(&keyA)
	var (
		mu       sync.Mutex
		sent     int
		failures []string
	)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			key := *current.Load()
			resp, _, err := harness.Get(t.Context(), client, e.replicas[i%2].URL+"/api/v1/developer/accounts?limit=1", key)
			mu.Lock()
			sent++
			if err != nil || resp.StatusCode != http.StatusOK {
				failures = append(failures, fmt.Sprintf("%s replica %d key %s: %v %v",
					time.Now().Format(time.StampMilli), i%2, key[len(key)-4:], err, resp))
			}
			mu.Unlock()
		}
	}()
	time.Sleep(300 * time.Millisecond)
	const grace = 4 * time.Second
	keyB := roll(idA, grace.String())
	end := expiry(idA)
	if d := time.Until(end); d > grace || d < grace-2*time.Second {
		t.Fatalf("A expires in %s after a roll with a grace of %s", d, grace)
	}
	time.Sleep(time.Second) // the client keeps using A for a while, then moves
	current.Store(&keyB)
	// Meanwhile a probe sends A to each replica in turn every 25 ms: 200
	// until the end of the grace, 401 from within 1 s of it, and after.
	first401 := make([]time.Time, len(e.replicas))
	for i := 0; time.Now().Before(end.Add(1500 * time.Millisecond)); i++ {
		r := i % len(e.replicas)
		s := status(r, keyA)
		now := time.Now()
		switch {
		case s == http.StatusUnauthorized && now.Before(end):
			t.Errorf("replica %d refused A %s before its grace ended", r, end.Sub(now))
		case s == http.StatusUnauthorized && first401[r].IsZero():
			first401[r] = now
		case s != http.StatusUnauthorized && !first401[r].IsZero():
			t.Errorf("replica %d answered A with %d after refusing it", r, s)
		case s != http.StatusUnauthorized && now.After(end.Add(time.Second)):
			t.Errorf("replica %d answered A with %d %s after its grace ended", r, s, now.Sub(end))
		case s != http.StatusOK && s != http.StatusUnauthorized:
			t.Errorf("replica %d answered A with %d", r, s)
		}
		time.Sleep(25 * time.Millisecond)
	}
	close(stop)
	<-done
	mu.Lock()
	t.Logf("stream: %d requests, %d failed; the client switched to B %s before A's grace ended", sent, len(failures), grace-time.Second)
	if len(failures) > 0 || sent < 100 {
		t.Errorf("the stream across the roll: %d of %d requests failed:\n%s", len(failures), sent, strings.Join(failures, "\n"))
	}
	mu.Unlock()
	for r, at := range first401 {
		if at.IsZero() {
			t.Errorf("replica %d never refused A after its grace", r)
			continue
		}
		t.Logf("replica %d: first 401 for A %s after the grace ended", r, at.Sub(end).Round(time.Millisecond))
		if at.Sub(end) > time.Second {
			t.Errorf("replica %d refused A %s after its grace, want within 1 s", r, at.Sub(end))
		}
		if s := status(r, keyB); s != http.StatusOK {
			t.Errorf("key B on replica %d: %d", r, s)
		}
	}

	// A roll with no grace: the old key fails at once on every replica.
	keyC, idC, err := e.keysAdminCreate(t.Context(), keySpec{"roll_c", org, owner, "accounts:read"}, 30)
	if err != nil {
		t.Fatal(err)
	}
	for r := range e.replicas {
		if s := status(r, keyC); s != http.StatusOK {
			t.Fatalf("key C on replica %d: %d", r, s)
		}
	}
	keyD := roll(idC, "0")
	for r := range e.replicas {
		if s := status(r, keyC); s != http.StatusUnauthorized {
			t.Errorf("key C on replica %d right after a roll with no grace: %d, want 401", r, s)
		}
		if s := status(r, keyD); s != http.StatusOK {
			t.Errorf("key D on replica %d: %d", r, s)
		}
	}
}
