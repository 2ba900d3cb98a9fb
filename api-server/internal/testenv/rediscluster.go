package testenv

import (
	"context"
	"os"

	"github.com/adsnap/svc/api-server/redistest"
)

// RedisCluster is a Redis Cluster of three masters that a test started with
// redistest.StartCluster, the one start-up the e2e suite uses too: URL and
// Addrs come from there. The machine's Redis is never touched.
type RedisCluster struct {
	*redistest.Cluster
	dir string
}

// StartRedisCluster starts a three-master Redis Cluster under dir (made if
// needed) and waits until it serves every slot; Stop removes dir. The error
// says how to install redis-server when it is missing.
func StartRedisCluster(ctx context.Context, dir string) (*RedisCluster, error) {
	c, err := redistest.StartCluster(ctx, dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return &RedisCluster{Cluster: c, dir: dir}, nil
}

// Node returns the process of node i, for tests that stop one.
func (rc *RedisCluster) Node(i int) *os.Process { return rc.Process(i) }

// Stop kills the cluster's processes (exactly those it started) and removes
// their directory.
func (rc *RedisCluster) Stop() {
	rc.Cluster.Stop()
	_ = os.RemoveAll(rc.dir)
}
