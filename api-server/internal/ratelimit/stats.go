package ratelimit

import "github.com/redis/go-redis/v9"

// PoolStats returns the connection pool's statistics, for metrics.
func (r *Redis) PoolStats() *redis.PoolStats { return r.rdb.PoolStats() }
