//go:build failover

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/adsnap/svc/e2e/internal/harness"
)

// TestFailover is the `failover` group (issue #36): two svc-api replicas
// under a steady load (one key at 2 requests/s, another at 20/s, each from
// its own source address) while a dependency fails over: a Redis Cluster
// master and a Sentinel master killed, a PostgreSQL primary replaced by its
// promoted replica (and back, split brain), the read replica restarted, and
// the replicas restarted one after the other behind the shipped HAProxy
// configuration. Each scenario logs its figures and asserts issue 36's
// "Done when" targets, several of which today's service misses (phase two
// of the issue changes the service). Everything it starts is stopped by
// PID. It is behind the build tag `failover`:
//
//	go test -count=1 -tags failover -run TestFailover -v .
func TestFailover(t *testing.T) {
	e := setup(t)
	began := time.Now()
	f := newFailover(t, e)
	t.Logf("failover group set-up: %.1f s", time.Since(began).Seconds())
	for _, sc := range []struct {
		name string
		run  func(*testing.T, *failover)
	}{
		{"RedisClusterMasterKilled", testFailoverCluster},
		{"SentinelMasterKilled", testFailoverSentinel},
		{"RollingRestart", testFailoverRollingRestart},
		{"ReadReplicaRestarted", testFailoverReadReplica},
		{"PostgresPromotion", testFailoverPromotion}, // last: the pair's primary changes
	} {
		t.Run(sc.name, func(t *testing.T) {
			began := time.Now()
			sc.run(t, f)
			t.Logf("%s: %.1f s", sc.name, time.Since(began).Seconds())
		})
	}
	t.Logf("failover group: %.1f s", time.Since(began).Seconds())
}

// failover is the group's system: a PostgreSQL primary with a streaming
// replica (the scale group's pair) holding the fixture and the group's
// keys. Each scenario starts its own Redis and svc-api replicas.
type failover struct {
	e      *env
	dir    string
	pg     *harness.PostgresPair
	keys   map[string]string // name → key value
	keyIDs map[string]string
	// metrics maps a replica's URL to its metrics listener's, whose
	// /readyz has the detail (each read replica's state and lag, each
	// Cluster master's); the public /readyz says ready or not (issue 30).
	metrics map[string]string
}

// failoverKeys are the group's keys and their organizations (at most ten
// active keys an organization).
var failoverKeys = map[string]string{
	// The Cluster scenario picks two of these by where their organization's
	// buckets live.
	"cl-alpha": harness.OrgAlpha, "cl-beta": harness.OrgBeta, "cl-gamma": harness.OrgGamma,
	"se-slow": harness.OrgAlpha, "se-fast": harness.OrgBeta,
	"rr-slow": harness.OrgGamma, "rr-fast": harness.OrgAlpha, "rr-bulk": harness.OrgBeta,
	"rd-slow": harness.OrgGamma, "rd-fast": harness.OrgBeta,
	"pg-slow": harness.OrgAlpha, "pg-fast": harness.OrgGamma, "pg-rev": harness.OrgBeta,
}

func newFailover(t *testing.T, e *env) *failover {
	t.Helper()
	f := &failover{e: e, keys: map[string]string{}, keyIDs: map[string]string{}, metrics: map[string]string{}}
	// Not t.TempDir: the postgres user must reach the directory.
	var err error
	if f.dir, err = os.MkdirTemp("", "svc-failover-"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(f.dir) })
	if err := os.Chmod(f.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	pgDir := filepath.Join(f.dir, "pg")
	if err := os.MkdirAll(pgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	f.pg, err = harness.StartPostgresPair(pgDir, func(primary string) error {
		ctx := context.Background()
		dbEnv := []string{"SVC_DATABASE_URL=" + primary}
		if out, errOut, code, err := harness.Run(ctx, e.bin.API, dbEnv, "", "migrate"); err != nil || code != 0 {
			return fmt.Errorf("svc-api migrate: exit %d %v\n%s%s", code, err, out, errOut)
		}
		if out, errOut, code, err := harness.Run(ctx, e.bin.API, dbEnv, string(e.fix.JSON()), "import", "-"); err != nil || code != 0 {
			return fmt.Errorf("svc-api import: exit %d %v\n%s%s", code, err, out, errOut)
		}
		for name, org := range failoverKeys {
			key, id, err := keysCreate(ctx, e, primary, keySpec{name, org, e.fix.Owner[org], allScopes})
			if err != nil {
				return err
			}
			f.keys[name], f.keyIDs[name] = key, id
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.pg.Stop)
	return f
}

// raised are the limits of replicas whose scenario does not test them.
var raised = []string{"SVC_LIMIT_KEY_PER_MINUTE=1000000", "SVC_LIMIT_ORG_PER_MINUTE=1000000", "SVC_LIMIT_IP_PER_MINUTE=1000000"}

// startReplicas starts n svc-api replicas with env (the database, Redis,
// limits…) on a fresh Redis namespace, each stopped by PID when the test
// ends.
func (f *failover) startReplicas(t *testing.T, n int, env ...string) []*harness.Server {
	t.Helper()
	ns := "failover" + harness.RandomHex(4)
	var out []*harness.Server
	for range n {
		srv, _ := f.startReplica(t, 0, append([]string{"SVC_REDIS_NAMESPACE=" + ns}, env...))
		t.Cleanup(func() {
			if err := srv.Stop(); err != nil {
				t.Errorf("stopping %s: %v", srv.URL, err)
			}
		})
		out = append(out, srv)
	}
	return out
}

// startReplica starts one svc-api replica on port (a free one if 0) and
// returns it with the environment it was given, so that it can be started
// again alike. The caller stops it.
func (f *failover) startReplica(t *testing.T, port int, env []string) (*harness.Server, []string) {
	t.Helper()
	var err error
	if port == 0 {
		if port, err = harness.FreePort(); err != nil {
			t.Fatal(err)
		}
	}
	mport, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	full := append([]string{
		fmt.Sprintf("SVC_LISTEN_ADDR=127.0.0.1:%d", port),
		fmt.Sprintf("SVC_METRICS_ADDR=127.0.0.1:%d", mport),
		fmt.Sprintf("SVC_SITE_URL=http://127.0.0.1:%d", port),
		"SVC_TRUSTED_PROXIES=127.0.0.1", // the load balancer's address; clients come from 127.0.0.2 and up
		"SVC_DATABASE_MAX_CONNS=8",
	}, env...)
	srv, err := harness.StartServer(f.e.bin.API, port, full, "serve")
	if err != nil {
		t.Fatal(err)
	}
	f.metrics[srv.URL] = fmt.Sprintf("http://127.0.0.1:%d", mport)
	return srv, full
}

// baseURLs returns the replicas' base URLs.
func baseURLs(rs []*harness.Server) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.URL)
	}
	return out
}
