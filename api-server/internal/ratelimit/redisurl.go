package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// NewRedis connects lazily to the Redis named by rawURL, in one of three
// forms, each read by go-redis's own parser:
//
//   - a single node: redis://[user:password@]host:port/db, or rediss:// for
//     TLS (redis.ParseURL);
//   - Sentinel: redis://[user:password@]sentinel1:port/db?master_name=NAME
//     &addr=sentinel2:port&addr=… (redis.ParseFailoverURL; the user and
//     password are the sentinels', the primary's are ?username= and
//     ?password=);
//   - Cluster: redis://[user:password@]node1:port?addr=node2:port&addr=…,
//     at least one addr= besides the host (redis.ParseClusterURL; the nodes
//     are seeds: the client learns the others from CLUSTER SLOTS).
//
// master_name chooses Sentinel, an addr= parameter without it chooses
// Cluster; anything else is a single node. Every call is bounded by deadline
// (DefaultDeadline if 0); commands are not retried, so that a failing store
// fails fast (a Cluster still follows MOVED and ASK redirections).
func NewRedis(rawURL, namespace string, deadline time.Duration) (*Redis, error) {
	return newRedis(rawURL, namespace, deadline, nil)
}

// dialer is go-redis's Options.Dialer: nil dials the URL's addresses;
// tests give connections of their own (export_test.go).
type dialer = func(ctx context.Context, network, addr string) (net.Conn, error)

func newRedis(rawURL, namespace string, deadline time.Duration, dial dialer) (*Redis, error) {
	if deadline <= 0 {
		deadline = DefaultDeadline
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, errors.New("redis url: not a URL") // never echo it: it may hold a password
	}
	q := u.Query()
	r := &Redis{ns: namespace, deadline: deadline, calls: newCallPool()}
	switch {
	case q.Has("master_name"):
		opt, err := redis.ParseFailoverURL(rawURL)
		if err != nil {
			return nil, urlError("redis sentinel url", rawURL, err) // urlredact.go
		}
		opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout, opt.PoolTimeout = deadline, deadline, deadline, deadline
		opt.ContextTimeoutEnabled = true
		opt.MaxRetries = -1
		opt.DisableIdentity = true
		if dial != nil {
			opt.Dialer = dial
		}
		r.rdb = redis.NewFailoverClient(opt)
	case q.Has("addr"):
		opt, err := redis.ParseClusterURL(rawURL)
		if err != nil {
			return nil, urlError("redis cluster url", rawURL, err)
		}
		opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout, opt.PoolTimeout = deadline, deadline, deadline, deadline
		opt.ContextTimeoutEnabled = true
		opt.MaxRetries = -1
		opt.DisableIdentity = true
		if dial != nil {
			opt.Dialer = dial
		}
		r.rdb, r.cluster = redis.NewClusterClient(opt), true
	default:
		opt, err := redis.ParseURL(rawURL)
		if err != nil {
			return nil, urlError("redis url", rawURL, err)
		}
		opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout, opt.PoolTimeout = deadline, deadline, deadline, deadline
		opt.ContextTimeoutEnabled = true
		opt.MaxRetries = -1
		opt.DisableIdentity = true
		if dial != nil {
			opt.Dialer = dial
		}
		r.rdb = redis.NewClient(opt)
	}
	if !r.cluster {
		r.batch = &coalescer{rdb: r.rdb, deadline: deadline}
	}
	return r, nil
}

// ErrClusterNode reports a single-node URL that names a node of a Redis
// Cluster: each request's buckets span slots, so every request would fail.
var ErrClusterNode = errors.New("the Redis at --redis-url is a node of a Redis Cluster: name it in the Cluster form, redis://node1:port?addr=node2:port&addr=node3:port")

// CheckMode reports ErrClusterNode when the URL's form (single node) does
// not match the server (a Cluster node). A store that does not answer is
// not an error here (requests fail closed until it does).
func (r *Redis) CheckMode(ctx context.Context) error {
	c, ok := r.rdb.(*redis.Client)
	if !ok || r.cluster {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, r.deadline)
	defer cancel()
	info, err := c.Info(ctx, "cluster").Result()
	if err != nil {
		return nil
	}
	if strings.Contains(info, "cluster_enabled:1") {
		return ErrClusterNode
	}
	return nil
}

// Ping implements Limiter.
func (r *Redis) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, r.deadline)
	defer cancel()
	var err error
	if c, ok := r.rdb.(*redis.ClusterClient); ok {
		// Every master: a Cluster with one master down refuses the requests
		// whose buckets hash to it.
		err = c.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
			return n.Ping(ctx).Err()
		})
	} else {
		err = r.rdb.Ping(ctx).Err()
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return nil
}

// Probe takes a real limiter request (the script, a write) on every master
// of a Cluster, or on the single node: /readyz fails when any part of the
// store cannot serve the buckets that hash to it. On a Cluster it asks for
// the slot ranges and for the slots of candidate keys, to find one key per
// master.
func (r *Redis) Probe(ctx context.Context) error {
	ready := PerMinute("ready", 1_000_000)
	res := make([]Result, 1)
	if !r.cluster {
		return r.Allow(ctx, []Check{{Limit: ready, Key: "ready"}}, res)
	}
	ctx, cancel := context.WithTimeout(ctx, r.deadline)
	defer cancel()
	slots, err := r.rdb.ClusterSlots(ctx).Result()
	if err != nil {
		return fmt.Errorf("%w: cluster slots: %w", ErrUnavailable, err)
	}
	const candidates = 256
	pipe := r.rdb.Pipeline()
	cmds := make([]*redis.IntCmd, candidates)
	for i := range cmds {
		cmds[i] = pipe.ClusterKeySlot(ctx, "ready-"+strconv.Itoa(i))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("%w: cluster keyslot: %w", ErrUnavailable, err)
	}
	var checks []Check
	for _, s := range slots {
		found := false
		for i, c := range cmds {
			if sl := int(c.Val()); sl >= s.Start && sl <= s.End {
				checks = append(checks, Check{Limit: ready, Key: "ready-" + strconv.Itoa(i)})
				found = true
				break
			}
		}
		if !found { // a tiny slot range no candidate hashes to: at least ping
			// the cluster (ForEachMaster in Ping)
			if err := r.Ping(ctx); err != nil {
				return err
			}
		}
	}
	res = make([]Result, len(checks))
	return r.Allow(ctx, checks, res)
}
