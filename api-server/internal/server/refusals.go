package server

import (
	"sync"
	"time"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
)

// ipRefusals remembers, per client IP, until when the shared per-IP bucket
// refuses. Under GCRA a refused bucket admits no request before its
// RetryAfter, whatever the other replicas do (its theoretical arrival time
// only grows), so answering 429 from here until then gives exactly the
// answer the store would give, without the key lookup or the store round
// trip: a flood from one IP over its limit costs neither the database nor Redis.
type ipRefusals struct {
	mu    sync.RWMutex
	until map[string]refusal
	puts  int
}

type refusal struct {
	at     time.Time // before the store was asked: the memo never outlives the refusal
	result ratelimit.Result
}

func newIPRefusals() *ipRefusals { return &ipRefusals{until: make(map[string]refusal)} }

// get returns the refusal of ip still in force at now, with its durations
// counted from now.
func (r *ipRefusals) get(ip string, now time.Time) (ratelimit.Result, bool) {
	r.mu.RLock()
	ref, ok := r.until[ip]
	r.mu.RUnlock()
	if !ok {
		return ratelimit.Result{}, false
	}
	elapsed := now.Sub(ref.at)
	if elapsed < 0 || elapsed >= ref.result.RetryAfter {
		return ratelimit.Result{}, false
	}
	res := ref.result
	res.RetryAfter -= elapsed
	res.ResetAfter -= elapsed
	return res, true
}

// put records that the per-IP bucket of ip refused, as asked at time at.
func (r *ipRefusals) put(ip string, res ratelimit.Result, at time.Time) {
	if res.Allowed || res.RetryAfter <= 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.until[ip] = refusal{at: at, result: res}
	r.puts++
	if r.puts%1024 == 0 { // forget refusals that have run out
		for k, v := range r.until {
			if at.Sub(v.at) >= v.result.RetryAfter {
				delete(r.until, k)
			}
		}
	}
}
