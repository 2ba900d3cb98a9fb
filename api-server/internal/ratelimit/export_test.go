package ratelimit

import "context"

// AllowEach takes each request's checks with its own allowChecks script,
// one after the other, and returns the raw replies; AllowBatch takes them
// all with one allowBatch script, as the coalescer does. For tests that
// compare the two.
func (r *Redis) AllowEach(ctx context.Context, reqs [][]Check) ([]any, error) {
	out := make([]any, len(reqs))
	for i, checks := range reqs {
		call := r.newCall(checks)
		v, err := allowChecks.Run(ctx, r.rdb, call.keys, call.args...).Result()
		call.release()
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (r *Redis) AllowBatch(ctx context.Context, reqs [][]Check) ([]any, error) {
	calls := make([]*scriptCall, len(reqs))
	for i, checks := range reqs {
		calls[i] = r.newCall(checks)
	}
	c := &coalescer{}
	c.batchArgs(calls)
	return allowBatch.Run(ctx, r.rdb, c.keys, c.args...).Slice()
}
