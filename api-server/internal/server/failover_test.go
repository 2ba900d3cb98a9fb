package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/server"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/redis/go-redis/v9"
)

// TestClusterMasterDown (issue 36), on a Redis Cluster of its own and real
// PostgreSQL: a master killed refuses (503) only the requests whose
// buckets live on it; a key whose organization's and IP's buckets live on
// the other masters is served throughout, however many requests the other
// key has failed (no process-wide breaker); /readyz stays ready, says
// "degraded", and its detail names the master down. The Cluster runs with
// cluster-require-full-coverage off, as the README asks, so that the other
// masters keep serving once the dead one is flagged.
func TestClusterMasterDown(t *testing.T) {
	b := dbtest.Postgres(t)
	ctx := t.Context()
	if err := testenv.Migrate(ctx, b.DB); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "server-cluster-")
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	rc, err := testenv.StartRedisCluster(sctx, dir)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Stop()
	for _, addr := range rc.Addrs {
		c := redis.NewClient(&redis.Options{Addr: addr})
		err := c.ConfigSet(ctx, "cluster-require-full-coverage", "no").Err()
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	l, err := ratelimit.NewRedis(rc.URL, testenv.Namespace(), 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	e := newEnv(t, b, opts{limiter: l})
	st, err := store.New(ctx, b.Handle)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	hs, err := server.NewHandlers(server.Config{Keys: keys.NewAuthenticator(b.Handle, keys.AuthenticatorOptions{}), Store: st, Limiter: l})
	if err != nil {
		t.Fatal(err)
	}

	cc := l.Client().(*redis.ClusterClient)
	master := func(tag string) string {
		n, err := cc.MasterForKey(ctx, "{"+tag+"}")
		if err != nil {
			t.Fatal(err)
		}
		return n.Options().Addr
	}
	killed := master("org:org_a")
	if master("org:org_b") == killed {
		t.Fatal("org_a's and org_b's buckets live on one master of a fresh three-master Cluster")
	}
	var ips []string // IPs whose buckets live on the masters that stay
	for n := 1; len(ips) < 2; n++ {
		ip := "192.0.2." + strconv.Itoa(n)
		if master("ip:"+ip) != killed {
			ips = append(ips, ip)
		}
	}
	path := server.BasePath + "/accounts"
	for _, k := range []string{e.all, e.b} {
		if w := e.do(req{path: path, key: k, ip: ips[0]}); w.Code != http.StatusOK {
			t.Fatalf("before the kill: %d %s", w.Code, w.Body)
		}
	}
	for i, addr := range rc.Addrs {
		if addr == killed {
			rc.Kill(i)
		}
	}
	for i := range 20 {
		if w := e.do(req{path: path, key: e.all, ip: ips[1]}); w.Code != http.StatusServiceUnavailable {
			t.Fatalf("request %d of the key whose buckets live on the killed master: %d, want 503", i, w.Code)
		}
		if w := e.do(req{path: path, key: e.b, ip: ips[0]}); w.Code != http.StatusOK {
			t.Fatalf("request %d of the key whose buckets live on the other masters: %d %s, want 200", i, w.Code, w.Body)
		}
	}

	w := httptest.NewRecorder()
	hs.API.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"rateLimitStore":"degraded"`) || strings.Contains(w.Body.String(), killed) {
		t.Errorf("public /readyz with one master down: %d %s, want 200, degraded, no address", w.Code, w.Body)
	}
	w = httptest.NewRecorder()
	hs.Readiness.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	var detail struct {
		Checks struct {
			Nodes []ratelimit.NodeStatus `json:"rateLimitNodes"`
		} `json:"checks"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &detail); err != nil || w.Code != http.StatusOK || len(detail.Checks.Nodes) != 3 {
		t.Fatalf("readiness detail: %d %s %v", w.Code, w.Body, err)
	}
	for _, n := range detail.Checks.Nodes {
		if (n.Node == killed) == n.Healthy || n.Slots == "" && n.Healthy {
			t.Errorf("detail %+v (killed %s)", n, killed)
		}
	}
}
