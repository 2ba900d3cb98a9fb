package keys

import (
	"fmt"
	"testing"
	"time"
)

// TestMarkIsBounded: with 20,000 keys in use and no writer running, the
// writer holds at most its queue (no map grows with the keys in use).
func TestMarkIsBounded(t *testing.T) {
	w := newLastUsedWriter(nil, nil)
	now := time.Now()
	for i := range 20000 {
		w.mark(fmt.Sprintf("key_%05d", i), time.Time{}, now)
	}
	if len(w.pending) > queueLen || len(w.ch) != queueLen {
		t.Fatalf("pending %d, queued %d; want at most %d", len(w.pending), len(w.ch), queueLen)
	}
	recent := now.Add(-time.Second)
	w.mark("key_recent", recent, now)
	if _, ok := w.pending["key_recent"]; ok {
		t.Fatal("a key used a second ago was queued")
	}
}

// BenchmarkMark20000 measures mark with 20,000 keys in use: O(1), unlike
// the former sweep of up to 10,000 entries under the lock.
func BenchmarkMark20000(b *testing.B) {
	w := newLastUsedWriter(nil, nil)
	now := time.Now()
	ids := make([]string, 20000)
	for i := range ids {
		ids[i] = fmt.Sprintf("key_%05d", i)
		w.mark(ids[i], time.Time{}, now)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		w.mark(ids[i%len(ids)], time.Time{}, now)
		i++
	}
}

// TestIdentityCacheBounded: at most about its size, the keys in use kept.
func TestIdentityCacheBounded(t *testing.T) {
	c := newIdentityCache(100)
	hot := make([]byte, 32)
	hot[0] = 0xff
	c.put(hot, knownKey{Identity: Identity{KeyID: "hot"}})
	for i := range 1000 {
		h := make([]byte, 32)
		h[1], h[2] = byte(i), byte(i>>8)
		c.put(h, knownKey{Identity: Identity{KeyID: fmt.Sprint(i)}})
		if _, ok := c.get(hot); !ok {
			t.Fatalf("hot key dropped after %d puts", i)
		}
	}
	if n := c.len(); n > 100 {
		t.Fatalf("%d entries, want at most 100", n)
	}
}
