package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// rig is the set-up that every mode of the harness (run.go, tracing.go,
// scale.go) shares: the settings, a temporary directory, the binaries built
// from the tree and a run ID naming the databases and Redis namespaces.
type rig struct {
	s     settings
	tmp   string
	runID string
	bins  map[string]string
	today time.Time
}

// sources are the binaries a mode can ask for: module directory and package.
var sources = map[string]struct{ dir, pkg string }{
	"svc-api":    {"api-server", "./cmd/svc-api"},
	"keys-admin": {"keys-admin", "./cmd/keys-admin"},
	"svc":        {"svc-cli", "./cmd/svc"},
}

// toolHint says how to install a tool a mode needs.
var toolHint = map[string]string{
	"wrk":     "scripts/bench.sh installs it with apt-get",
	"haproxy": "scripts/test-deps.sh installs it",
}

// setUp loads the settings, checks that tools are installed and builds bins
// into a new temporary directory. The context ends on SIGINT or SIGTERM;
// done stops every server the mode started and removes the directory, and
// is to be called however setUp returned.
func setUp(prefix string, tools []string, bins ...string) (ctx context.Context, r *rig, done func(), err error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	r = &rig{bins: map[string]string{}, today: time.Now().UTC().Truncate(24 * time.Hour)}
	done = func() {
		stopAll()
		if r.tmp != "" {
			_ = os.RemoveAll(r.tmp)
		}
		stop()
	}
	if r.s, err = loadSettings(); err != nil {
		return ctx, r, done, err
	}
	for _, t := range tools {
		if _, err := exec.LookPath(t); err != nil {
			return ctx, r, done, fmt.Errorf("%s is not installed (%s)", t, toolHint[t])
		}
	}
	if r.tmp, err = os.MkdirTemp("", prefix); err != nil {
		return ctx, r, done, err
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	r.runID = hex.EncodeToString(b[:])
	fmt.Fprintf(os.Stderr, "bench: run %s, building %s in %s\n", r.runID, strings.Join(bins, ", "), r.tmp)
	for _, name := range bins {
		src, ok := sources[name]
		if !ok {
			return ctx, r, done, fmt.Errorf("no source for binary %s", name)
		}
		bin := filepath.Join(r.tmp, name)
		cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, src.pkg)
		cmd.Dir = filepath.Join(r.s.root, src.dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			return ctx, r, done, fmt.Errorf("build %s: %w\n%s", name, err, out)
		}
		r.bins[name] = bin
	}
	return ctx, r, done, nil
}

// benchDB is a filled database and a key of organization 0 on it.
type benchDB struct {
	name, url, key string
	generated      time.Duration // time taken by generate
}

// database creates the database bench_<run>_<suffix>, migrates it with
// svc-api, fills it with rows insight rows (gen.go) and creates a key of
// organization 0 with every read scope. drop drops the database unless
// BENCH_KEEP=1; it is to be called however database returned.
func (r *rig) database(ctx context.Context, suffix string, rows int) (db *benchDB, drop func(), err error) {
	db = &benchDB{name: fmt.Sprintf("bench_%s_%s", r.runID, suffix)}
	drop = func() {}
	fmt.Fprintf(os.Stderr, "bench: %d rows: database %s\n", rows, db.name)
	if db.url, err = createDatabase(ctx, r.s.adminURL, db.name); err != nil {
		return db, drop, err
	}
	if !r.s.keep {
		drop = func() {
			if err := dropDatabase(context.WithoutCancel(ctx), r.s.adminURL, db.name); err != nil {
				fmt.Fprintf(os.Stderr, "bench: drop %s: %v\n", db.name, err)
			}
		}
	}
	if out, err := exec.CommandContext(ctx, r.bins["svc-api"], "migrate", "--database-url", db.url).CombinedOutput(); err != nil {
		return db, drop, fmt.Errorf("migrate: %w\n%s", err, out)
	}
	t0 := time.Now()
	if err := generate(ctx, db.url, rows, r.today); err != nil {
		return db, drop, fmt.Errorf("generate %d rows: %w", rows, err)
	}
	db.generated = time.Since(t0)
	fmt.Fprintf(os.Stderr, "bench: %d rows generated in %s\n", rows, db.generated.Round(time.Second))
	out, err := exec.CommandContext(ctx, r.bins["keys-admin"], "create", "--database-url", db.url, "--org", orgID(0),
		"--user", ownerID(0), "--scopes", "accounts:read,campaigns:read,insights:read", "--expires-in-days", "7",
		"--name", "bench-"+suffix).Output()
	if err != nil {
		return db, drop, fmt.Errorf("keys-admin create: %w", err)
	}
	db.key = strings.TrimSpace(string(out))
	return db, drop, nil
}

// server is a server under load: its name in the results, base URL, the
// bearer token its requests carry ("" for none) and its process.
type server struct {
	name, base, bearer string
	p                  *proc
}

// startAPI starts `svc-api serve` on db with the full pipeline (PostgreSQL,
// Redis in namespace bench_<run>, db's key) and the limits raised so that
// the load is not refused, log level BENCH_LOG_LEVEL (default info); env
// overrides any of those. It returns once /readyz answers 200.
func (r *rig) startAPI(ctx context.Context, name string, db *benchDB, env ...string) (server, error) {
	port, err := freePort()
	if err != nil {
		return server{}, err
	}
	listen := "127.0.0.1:" + strconv.Itoa(port)
	base := []string{"SVC_DATABASE_URL=" + db.url, "SVC_REDIS_URL=" + r.s.redisURL, "SVC_REDIS_NAMESPACE=bench_" + r.runID,
		"SVC_LISTEN_ADDR=" + listen, "SVC_LIMIT_KEY_PER_MINUTE=100000000", "SVC_LIMIT_ORG_PER_MINUTE=100000000",
		"SVC_LIMIT_IP_PER_MINUTE=100000000", "SVC_LOG_LEVEL=" + envOr("BENCH_LOG_LEVEL", "info"),
		// The load generator is one client IP holding BENCH_CONNECTIONS
		// connections, and a run starts while the server may still count
		// some of the last run's as open (their requests end as 499): at the
		// default cap, 64, the bench's own concurrency, the server closed one
		// connection now and then ("connections over the per-IP cap closed"
		// in its log), which wrk counted as an error: the "errors under
		// load" of earlier runs. Clients of a deployment are many IPs, or a
		// trusted proxy, which is not capped.
		"SVC_MAX_CONNS_PER_IP=" + strconv.Itoa(4*r.s.conns),
		// No load balancer watches the bench's servers: stop at once
		// (svc-api's --drain-delay, 5 s by default).
		"SVC_DRAIN_DELAY=0"}
	// exec uses the last value of a repeated variable: env wins.
	p, _, err := start(r.tmp, name, append(base, env...), r.bins["svc-api"], "serve")
	if err != nil {
		return server{}, err
	}
	if err := waitReady(ctx, p, "http://"+listen+"/readyz"); err != nil {
		return server{}, err
	}
	return server{name: "svc-api", base: "http://" + listen, bearer: db.key, p: p}, nil
}

// startBaseline starts `bench baseline` (baseline.go, this binary) on db,
// serving organization 0, and returns once /healthz answers 200.
func (r *rig) startBaseline(ctx context.Context, db *benchDB) (server, error) {
	self, err := os.Executable()
	if err != nil {
		return server{}, err
	}
	p, stdout, err := start(r.tmp, "baseline", nil, self, "baseline", "--database-url", db.url, "--org", orgID(0))
	if err != nil {
		return server{}, err
	}
	addr, err := stdout.ReadString('\n')
	if err != nil {
		return server{}, fmt.Errorf("baseline did not start: %s", p.tail())
	}
	base := "http://" + strings.TrimSpace(addr)
	if err := waitReady(ctx, p, base+"/healthz"); err != nil {
		return server{}, err
	}
	return server{name: "baseline", base: base, p: p}, nil
}

// load runs wrk once against url for d and measures with m the CPU used
// meanwhile (by kind, see used) and the wall time in seconds.
func (r *rig) load(ctx context.Context, url, bearer string, d time.Duration, m cpuMeter) (loadResult, map[string]float64, float64, error) {
	before, t0 := m.sample(), time.Now()
	res, err := wrk(ctx, url, bearer, r.s.conns, d)
	if err != nil {
		return res, nil, 0, err
	}
	return res, used(before, m.sample()), time.Since(t0).Seconds(), nil
}

// meter counts the CPU of sv's process as "server", with the PostgreSQL
// backends of db and the redis-server of the bench.
func (r *rig) meter(sv server, db *benchDB) cpuMeter {
	return cpuMeter{pids: map[string][]int{"server": {sv.p.cmd.Process.Pid}}, database: db.name, redisPort: redisPort(r.s.redisURL)}
}

// measure loads each server with ep, one at a time: a 2 s warm-up of every
// server (caches, pools, prepared statements; not counted), then
// BENCH_REPEAT runs of BENCH_DURATION each, alternating between the servers
// so that a change in the machine's other load affects them alike. Each
// run records the CPU per request of the server, the PostgreSQL backends of
// db and Redis. It returns each server's median run by req/s (median).
// label starts the progress lines.
func (r *rig) measure(ctx context.Context, servers []server, db *benchDB, ep endpoint, label string) (map[string]loadResult, error) {
	for _, sv := range servers {
		if _, err := wrk(ctx, sv.base+ep.Path, sv.bearer, r.s.conns, 2*time.Second); err != nil {
			return nil, err
		}
	}
	runs := map[string][]loadResult{}
	for range r.s.repeat {
		for _, sv := range servers {
			res, u, el, err := r.load(ctx, sv.base+ep.Path, sv.bearer, r.s.duration, r.meter(sv, db))
			if err != nil {
				return nil, err
			}
			res.CPU = perRequest(u, res.Requests, el)
			fmt.Fprintf(os.Stderr, "bench: %s %-8s %-24s %7.0f req/s  p50 %6.2f ms  p99 %6.2f ms  errors %d  "+
				"CPU ms/req: server %.3f  PostgreSQL %.3f  Redis %.3f  (machine %.0f%% busy)\n",
				label, sv.name, ep.Name, res.RPS, res.P50, res.P99, res.Errors,
				res.CPU.Server, res.CPU.Postgres, res.CPU.Redis, res.CPU.MachineBusy)
			runs[sv.name] = append(runs[sv.name], res)
		}
	}
	out := map[string]loadResult{}
	for name, rs := range runs {
		out[name] = median(rs)
	}
	return out, nil
}
