//go:build failover

package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsnap/svc/e2e/internal/harness"
)

// The failover group's measuring instruments: a steady load of a few keys,
// each from its own source address, and a sampler of the replicas'
// /readyz, both timed from the load's start.

// stream is one client of the steady load: a key sending rate requests a
// second from its own source address.
type stream struct {
	name string
	key  string
	rate float64
	ip   string
}

// shot is one request of the load.
type shot struct {
	stream string
	target int           // index of the URL it went to
	sent   time.Duration // since the load began
	took   time.Duration
	status int // 0: no answer (err)
	err    error
}

// served reports whether the limiter answered: 200, or 429 (refused by a
// bucket, so the limit store worked).
func (s shot) served() bool {
	return s.status == http.StatusOK || s.status == http.StatusTooManyRequests
}

// steadyLoad sends each stream's requests open loop: each on a goroutine
// of its own at its tick, so that a slow answer does not slow the stream,
// to the targets in turn.
type steadyLoad struct {
	t0     time.Time
	mu     sync.Mutex
	shots  []shot
	events []string
	done   chan struct{}
	wg     sync.WaitGroup
	once   sync.Once
}

// startLoad starts the streams against targets (base URLs; scalePath is
// appended) and stops them when the test ends.
func startLoad(t *testing.T, targets []string, streams ...stream) *steadyLoad {
	t.Helper()
	l := &steadyLoad{t0: time.Now(), done: make(chan struct{})}
	for _, st := range streams {
		client := harness.ClientFrom(st.ip)
		client.Timeout = 10 * time.Second
		l.wg.Go(func() {
			tick := time.NewTicker(time.Duration(float64(time.Second) / st.rate))
			defer tick.Stop()
			for i := 0; ; i++ {
				select {
				case <-l.done:
					return
				case <-tick.C:
				}
				target := i % len(targets)
				l.wg.Go(func() {
					sent := time.Since(l.t0)
					resp, _, err := harness.Get(t.Context(), client, targets[target]+scalePath, st.key)
					s := shot{stream: st.name, target: target, sent: sent, took: time.Since(l.t0) - sent, err: err}
					if err == nil {
						s.status = resp.StatusCode
					}
					l.mu.Lock()
					l.shots = append(l.shots, s)
					l.mu.Unlock()
				})
			}
		})
	}
	t.Cleanup(func() {
		l.stop()
		l.mu.Lock()
		defer l.mu.Unlock()
		t.Logf("events: %s", strings.Join(l.events, "; "))
	})
	return l
}

// now is the time since the load began.
func (l *steadyLoad) now() time.Duration { return time.Since(l.t0) }

// mark records an event of the scenario and returns its time.
func (l *steadyLoad) mark(what string) time.Duration {
	at := l.now()
	l.mu.Lock()
	l.events = append(l.events, fmt.Sprintf("%s at %s", what, sec(at)))
	l.mu.Unlock()
	return at
}

// stop stops the streams, waits for the requests in flight, and returns
// every shot in the order sent.
func (l *steadyLoad) stop() []shot {
	l.once.Do(func() { close(l.done) })
	l.wg.Wait()
	return l.snapshot()
}

func (l *steadyLoad) snapshot() []shot {
	l.mu.Lock()
	s := append([]shot(nil), l.shots...)
	l.mu.Unlock()
	sort.Slice(s, func(i, j int) bool { return s[i].sent < s[j].sent })
	return s
}

// waitFor polls the shots every 100 ms until cond holds (true) or limit
// passes (false).
func (l *steadyLoad) waitFor(limit time.Duration, cond func([]shot) bool) bool {
	for deadline := time.Now().Add(limit); ; time.Sleep(100 * time.Millisecond) {
		if cond(l.snapshot()) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// recoveredFor returns a condition: for each stream named, among the
// shots sent after from, its last 503 or failure (or from, if none) is at
// least d old and an answer from the limiter (200 or 429) was sent after it.
func (l *steadyLoad) recoveredFor(d, from time.Duration, names ...string) func([]shot) bool {
	return func(shots []shot) bool {
		now := l.now()
		for _, n := range names {
			f := figuresOf(shots, n, from)
			start := max(from, f.lastBad)
			if now-start < d || f.servedAfter(start) == 0 {
				return false
			}
		}
		return true
	}
}

// keyFigures is what one stream got from a time on.
type keyFigures struct {
	n                 int
	codes             map[int]int
	n503, failed      int           // 503s; other answers that are not 200 or 429, and no answer
	first503, last503 time.Duration // -1: none
	lastBad           time.Duration // the last 503 or failure, -1: none
	servedAgain       time.Duration // the first 200 or 429 sent after lastBad (-1: none)
	shots             []shot
}

func figuresOf(shots []shot, stream string, from time.Duration) keyFigures {
	f := keyFigures{codes: map[int]int{}, first503: -1, last503: -1, lastBad: -1, servedAgain: -1}
	for _, s := range shots {
		if s.stream != stream || s.sent < from {
			continue
		}
		f.n++
		f.codes[s.status]++
		f.shots = append(f.shots, s)
		switch {
		case s.status == http.StatusServiceUnavailable:
			f.n503++
			if f.first503 < 0 {
				f.first503 = s.sent
			}
			f.last503, f.lastBad = s.sent, s.sent
		case !s.served():
			f.failed++
			f.lastBad = s.sent
		}
	}
	for _, s := range f.shots {
		if s.sent > f.lastBad && s.served() {
			f.servedAgain = s.sent
			break
		}
	}
	return f
}

// servedAfter counts the answers from the limiter sent after t.
func (f keyFigures) servedAfter(t time.Duration) int {
	n := 0
	for _, s := range f.shots {
		if s.sent > t && s.served() {
			n++
		}
	}
	return n
}

// window is the 503 window relative to zero: "n × 503 from +a to +b s".
func (f keyFigures) window(zero time.Duration) string {
	if f.n503 == 0 {
		return fmt.Sprintf("%d requests, no 503 (%v)", f.n, f.codes)
	}
	return fmt.Sprintf("%d requests, %d × 503 from %s to %s (%.1f s) (%v)", f.n, f.n503,
		rel(f.first503, zero), rel(f.last503, zero), (f.last503 - f.first503).Seconds(), f.codes)
}

// firstError returns the first failure's description, for messages.
func firstError(shots []shot) string {
	for _, s := range shots {
		if s.err != nil {
			return s.err.Error()
		}
	}
	return ""
}

// sec formats a time of the load.
func sec(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// rel formats t relative to zero: "+1.23 s".
func rel(t, zero time.Duration) string {
	if t < 0 {
		return "never"
	}
	return fmt.Sprintf("%+.2f s", (t - zero).Seconds())
}

// readyRound is one sampling of every replica's /readyz.
type readyRound struct {
	at    time.Duration
	codes []int // 0: no answer
	body  []string
}

// readySampler asks each replica's /readyz every period.
type readySampler struct {
	mu     sync.Mutex
	rounds []readyRound
	done   chan struct{}
	wg     sync.WaitGroup
	once   sync.Once
}

func sampleReady(t *testing.T, l *steadyLoad, urls []string, every time.Duration) *readySampler {
	t.Helper()
	r := &readySampler{done: make(chan struct{})}
	client := &http.Client{Timeout: 3 * time.Second}
	r.wg.Go(func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			round := readyRound{at: l.now()}
			for _, u := range urls {
				code, body := 0, ""
				if resp, b, err := harness.Get(t.Context(), client, u+"/readyz", ""); err == nil {
					code, body = resp.StatusCode, compactJSON(b)
				}
				round.codes, round.body = append(round.codes, code), append(round.body, body)
			}
			r.mu.Lock()
			r.rounds = append(r.rounds, round)
			r.mu.Unlock()
			select {
			case <-r.done:
				return
			case <-tick.C:
			}
		}
	})
	t.Cleanup(func() { r.stop() })
	return r
}

func (r *readySampler) stop() []readyRound {
	r.once.Do(func() { close(r.done) })
	r.wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]readyRound(nil), r.rounds...)
}

// compactJSON returns b on one line (as it came when it is not JSON).
func compactJSON(b []byte) string {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return strings.TrimSpace(string(b))
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// timeline describes replica i's /readyz over the rounds, relative to
// zero: "200 until +1.2 s, 503 +1.2 … +17.9 s, 200 from +18.1 s", with the
// first body of each non-200 stretch.
func timeline(rounds []readyRound, i int, zero time.Duration) string {
	var parts []string
	for j := 0; j < len(rounds); {
		k := j
		for k+1 < len(rounds) && rounds[k+1].codes[i] == rounds[j].codes[i] {
			k++
		}
		p := fmt.Sprintf("%d %s … %s", rounds[j].codes[i], rel(rounds[j].at, zero), rel(rounds[k].at, zero))
		if rounds[j].codes[i] != http.StatusOK {
			p += " " + rounds[j].body[i]
		}
		parts = append(parts, p)
		j = k + 1
	}
	return strings.Join(parts, "; ")
}

// allDown returns the rounds in which no replica's /readyz answered 200:
// a load balancer checking /readyz has no replica left.
func allDown(rounds []readyRound) (n int, first, last time.Duration) {
	first, last = -1, -1
	for _, r := range rounds {
		up := false
		for _, c := range r.codes {
			up = up || c == http.StatusOK
		}
		if !up {
			n++
			if first < 0 {
				first = r.at
			}
			last = r.at
		}
	}
	return n, first, last
}

// rateBound is the limiter's bound on the 200s of a key sending faster
// than its limit between its first and last 200 (GCRA, burst = the limit,
// one more each interval): burst + ⌊span / interval⌋, span measured
// between the requests' sending and answering (the decision lies between),
// so hi uses the longest span and lo the shortest, less one for the
// test's own pacing (a request every 50 ms picks up an interval late).
func rateBound(oks []shot, burst int, interval time.Duration) (lo, hi int) {
	if len(oks) == 0 {
		return 0, 0
	}
	first, last := oks[0], oks[len(oks)-1]
	long := last.sent + last.took - first.sent
	short := last.sent - (first.sent + first.took)
	return burst + int(math.Floor(float64(short)/float64(interval))) - 1, burst + int(math.Floor(float64(long)/float64(interval)))
}

// logErrors returns the distinct "msg: error" pairs of a replica's JSON log
// lines at warn or error, with how many lines had each, most frequent
// first, at most n: what the replica said went wrong.
func logErrors(logs string, n int) []string {
	counts := map[string]int{}
	for _, line := range strings.Split(logs, "\n") {
		var v struct {
			Level, Msg, Error, Detail string
		}
		if json.Unmarshal([]byte(line), &v) != nil || (v.Level != "WARN" && v.Level != "ERROR") || v.Msg == "request" {
			continue
		}
		counts[strings.TrimSpace(v.Msg+": "+v.Error+" "+v.Detail)]++
	}
	var out []string
	for k := range counts {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		return counts[out[i]] > counts[out[j]] || counts[out[i]] == counts[out[j]] && out[i] < out[j]
	})
	if len(out) > n {
		out = out[:n]
	}
	for i, k := range out {
		out[i] = fmt.Sprintf("%d × %s", counts[k], k)
	}
	return out
}
