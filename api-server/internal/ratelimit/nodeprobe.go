package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// NodeStatus is one master of a Redis Cluster as ProbeNodes found it, for
// the readiness detail (the metrics listener's /readyz): its address, the
// slots it serves, and whether a limiter request on it succeeded.
type NodeStatus struct {
	Node    string `json:"node"`
	Slots   string `json:"slots,omitempty"` // "0-5460", ranges comma-separated
	Healthy bool   `json:"healthy"`
	Reason  string `json:"reason,omitempty"`
	// answered: the node is reachable, even if it refused (an error reply
	// such as CLUSTERDOWN, while the Cluster itself fails over: every
	// replica of the service meets the same refusal, and a load balancer
	// can do nothing about it, so it does not make a replica unready).
	answered bool
}

// ErrNoNode reports a Cluster of which no master could take a limiter
// request: the limiter serves no slot.
var ErrNoNode = errors.New("no master of the Redis Cluster serves")

// ProbeNodes takes a real limiter request (the script, a write) on every
// master of a Cluster, each on a key of one of its own slots, and returns
// each master's state, in address order. It fails (ErrUnavailable) only
// when no master answers at all (an error reply such as CLUSTERDOWN is an
// answer: the Cluster refuses every replica alike): while some serve, the limiter serves the requests
// whose buckets live there, and /readyz stays ready (issue 36: one master
// down must not make every replica unready, a whole-API outage behind a
// load balancer checking /readyz). Reading the masters reloads go-redis's
// layout of the Cluster (ForEachMaster), so a probe also follows a
// failover. On a single node or under Sentinel it is Probe, one node.
func (r *Redis) ProbeNodes(ctx context.Context) ([]NodeStatus, error) {
	c, ok := r.rdb.(*redis.ClusterClient)
	if !ok {
		return nil, r.Probe(ctx)
	}
	// ForEachMaster first reloads the layout from a node that answers,
	// which costs a deadline when the first node it asks does not: then
	// each master is probed on a deadline of its own.
	ctx, cancel := context.WithTimeout(ctx, 3*r.deadline)
	defer cancel()
	var mu sync.Mutex
	var out []NodeStatus
	err := c.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
		ctx, cancel := context.WithTimeout(ctx, r.deadline)
		defer cancel()
		st := r.probeNode(ctx, n)
		mu.Lock()
		out = append(out, st)
		mu.Unlock()
		return nil
	})
	if err != nil && len(out) == 0 {
		return nil, fmt.Errorf("%w: cluster layout: %w", ErrUnavailable, err)
	}
	slices.SortFunc(out, func(a, b NodeStatus) int { return strings.Compare(a.Node, b.Node) })
	for _, st := range out {
		if st.Healthy || st.answered {
			return out, nil
		}
	}
	return out, fmt.Errorf("%w: %w", ErrUnavailable, ErrNoNode)
}

// probeNode asks master n for its slots (CLUSTER SLOTS, its own view) and
// runs the limiter's script on a key of the first of them.
func (r *Redis) probeNode(ctx context.Context, n *redis.Client) NodeStatus {
	addr := n.Options().Addr
	st := NodeStatus{Node: addr}
	if b := r.nodes.of(addr); b.open(time.Now()) {
		// Failing requests right now: say so even if the probe passes.
		st.Reason = "breaker open (requests failing)"
	}
	slots, err := n.ClusterSlots(ctx).Result()
	if err != nil {
		st.Reason, st.answered = err.Error(), isReply(err)
		return st
	}
	var ranges []string
	var first = -1
	for _, s := range slots {
		if len(s.Nodes) > 0 && s.Nodes[0].Addr == addr {
			ranges = append(ranges, strconv.Itoa(s.Start)+"-"+strconv.Itoa(s.End))
			if first < 0 {
				first = s.Start
			}
		}
	}
	st.Slots = strings.Join(ranges, ",")
	key := ""
	if first >= 0 {
		key = keyOfSlot(first)
	}
	if key == "" {
		// The node does not see itself as serving a slot (a master being
		// demoted), or no probe key was found: a ping is all there is to ask.
		if err := n.Ping(ctx).Err(); err != nil {
			st.Reason, st.answered = err.Error(), isReply(err)
			return st
		}
		st.answered, st.Healthy = true, st.Reason == ""
		return st
	}
	checks := []Check{{Limit: readyProbe, Key: key}}
	call := r.newCall(checks)
	b := batchScript{args: call.argsBuf[:0], lims: make([]*[3]any, 0, 1)}
	b.build([]*scriptCall{call})
	vals, err := runChecks(ctx, n, &b, 1)
	call.release()
	var raw any
	if err == nil {
		raw = vals[0]
	}
	var res [1]Result
	if _, _, err := r.reply(checks, res[:], raw, err); err != nil {
		st.Reason, st.answered = err.Error(), isReply(err)
		return st
	}
	// It answered; healthy unless its breaker says requests fail.
	st.answered, st.Healthy = true, st.Reason == ""
	return st
}

// readyProbe is the bucket of the readiness probes: a quota no probe rate
// reaches.
var readyProbe = PerMinute("ready", 1_000_000)

// keyOfSlot returns a probe key ("ready-<n>", its own hash tag) that hashes
// to slot: the first n that does, found by computing slots (some 16,000
// tries on average; none of them a round trip), or "" if none of the first
// million does.
func keyOfSlot(slot int) string {
	for i := range 1 << 20 {
		k := "ready-" + strconv.Itoa(i)
		if KeySlot(k) == slot {
			return k
		}
	}
	return ""
}

// KeySlot is Redis Cluster's slot of key: CRC16 (XMODEM) of its hash tag
// (the text between the first "{" and the next "}", when not empty) or of
// the whole key, modulo 16384.
func KeySlot(key string) int {
	if s := strings.IndexByte(key, '{'); s >= 0 {
		if e := strings.IndexByte(key[s+1:], '}'); e > 0 {
			key = key[s+1 : s+1+e]
		}
	}
	var crc uint16
	for i := 0; i < len(key); i++ {
		crc ^= uint16(key[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return int(crc) % 16384
}
