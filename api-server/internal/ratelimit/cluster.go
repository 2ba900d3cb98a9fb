package ratelimit

import (
	"context"
	"iter"
)

// On a Redis Cluster a script may only touch keys of one slot, so the
// checks of a request are taken one group at a time (Check.Group is the
// hash tag: the server puts a key's bucket with its organization's, and
// the IP's apart), in order, each group by allowChecks, all or nothing
// within the group. When a later group refuses (or fails), the charges of
// the earlier groups are given back (refundChecks). The split's largest
// error, stated in the README ("Production") and tested: no
// over-admission; an under-admission of at most one request per
// concurrent request refused by a later group, for the one round trip
// between the charge and its refund, and, when the refund itself fails
// (the earlier group's node just went down), one request per such failure
// until the bucket drains (one emission interval).
//
// A group is one slot, so one node: each group's script and each group's
// refund is one call to one node (runGroup, refundGroup).

// allowGroups is Allow on a Cluster: the groups in order, on one deadline.
func (r *Redis) allowGroups(ctx context.Context, checks []Check, results []Result) error {
	ctx, cancel := context.WithTimeout(ctx, r.deadline)
	defer cancel()
	for start, end := range groups(checks) {
		n, refused, err := r.runGroup(ctx, checks[start:end], results[start:end])
		if err != nil || refused {
			r.refund(ctx, checks[:start])
			if err == nil && n < end-start { // a gate refused: the rest is untouched
				clear(results[start+n : len(checks)])
			} else if err == nil {
				clear(results[end:len(checks)])
			}
			return err
		}
	}
	return nil
}

// runGroup takes the checks of one group (one slot) with one script,
// filling results, and returns how many results it filled and whether a
// bucket refused. The call goes through the breaker of the slot's master
// (nodebreaker.go): a failing master refuses its own groups only.
func (r *Redis) runGroup(ctx context.Context, checks []Check, results []Result) (n int, refused bool, err error) {
	err = r.guarded(ctx, r.bucketKey(checks[0]), func() error {
		var err error
		n, refused, err = r.run(ctx, checks, results)
		return err
	})
	return n, refused, err
}

// groups yields the [start, end) of each group of checks: a run of checks
// with the same tag (Check requires a group's checks to be next to each
// other).
func groups(checks []Check) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for start := 0; start < len(checks); {
			tag := checks[start].tag()
			end := start + 1
			for end < len(checks) && checks[end].tag() == tag {
				end++
			}
			if !yield(start, end) {
				return
			}
			start = end
		}
	}
}

// tag is the check's hash tag: its group, or its own key.
func (c Check) tag() string {
	if c.Group != "" {
		return c.Group
	}
	return c.Key
}

// refund gives back the charges of checks (the earlier groups, when a
// later one refused or failed), a group at a time.
func (r *Redis) refund(ctx context.Context, checks []Check) {
	for start, end := range groups(checks) {
		r.refundGroup(ctx, checks[start:end])
	}
}

// refundGroup gives back the charges of one group's checks, on its own
// deadline: the caller's may be spent. A failure is not reported: the
// request is refused either way, and the charge drains with its bucket
// (the bound stated above).
func (r *Redis) refundGroup(ctx context.Context, checks []Check) {
	var keysBuf [4]string
	var argsBuf [4]any
	keys, args := keysBuf[:0], argsBuf[:0]
	for _, c := range checks {
		keys = append(keys, r.bucketKey(c))
		args = append(args, c.Limit.Period.Seconds()/float64(c.Limit.Rate))
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.deadline)
	defer cancel()
	// Behind the master's breaker, as runGroup (nodebreaker.go).
	_ = r.guarded(rctx, keys[0], func() error { return refundChecks.Run(rctx, r.rdb, keys, args...).Err() })
}
