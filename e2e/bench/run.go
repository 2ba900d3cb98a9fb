package main

import (
	"bufio"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type settings struct {
	adminURL, redisURL string
	rows               int
	scale              []int
	duration           time.Duration
	repeat             int
	conns              int
	keep               bool
	out                string
	root               string
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func loadSettings() (settings, error) {
	s := settings{
		adminURL: envOr("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"),
		redisURL: envOr("BENCH_REDIS_URL", "redis://127.0.0.1:6379/0"),
		keep:     os.Getenv("BENCH_KEEP") == "1",
	}
	var err error
	if s.rows, err = strconv.Atoi(envOr("BENCH_ROWS", "1000000")); err != nil || s.rows < genOrgs {
		return s, fmt.Errorf("BENCH_ROWS: want an integer ≥ %d", genOrgs)
	}
	for f := range strings.SplitSeq(envOr("BENCH_SCALE", "10000,1000000,10000000"), ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < genOrgs {
			return s, fmt.Errorf("BENCH_SCALE: %q is not a row count", f)
		}
		s.scale = append(s.scale, n)
	}
	if s.duration, err = time.ParseDuration(envOr("BENCH_DURATION", "10s")); err != nil || s.duration < time.Second {
		return s, fmt.Errorf("BENCH_DURATION: want a duration of at least 1s")
	}
	if s.repeat, err = strconv.Atoi(envOr("BENCH_REPEAT", "3")); err != nil || s.repeat < 1 {
		return s, fmt.Errorf("BENCH_REPEAT: want a positive integer")
	}
	if s.conns, err = strconv.Atoi(envOr("BENCH_CONNECTIONS", "64")); err != nil || s.conns < 1 {
		return s, fmt.Errorf("BENCH_CONNECTIONS: want a positive integer")
	}
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return s, fmt.Errorf("run from inside the repository: %w", err)
	}
	s.root = strings.TrimSpace(string(out))
	s.out = envOr("BENCH_OUT", filepath.Join(s.root, "bench", "results"))
	return s, nil
}

// endpoint is one measured request.
type endpoint struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

func endpoints(today time.Time, offsets ...int) []endpoint {
	from := today.AddDate(0, 0, -89).Format(time.DateOnly)
	to := today.Format(time.DateOnly)
	var eps []endpoint
	for _, o := range offsets {
		eps = append(eps, endpoint{Name: fmt.Sprintf("/insights offset %d", o),
			Path: fmt.Sprintf("/api/v1/developer/insights?limit=50&offset=%d&from=%s&to=%s", o, from, to)})
	}
	return eps
}

func listEndpoints() []endpoint {
	return []endpoint{
		{Name: "/accounts", Path: "/api/v1/developer/accounts?limit=50"},
		{Name: "/campaigns", Path: "/api/v1/developer/campaigns?limit=50"},
	}
}

// results is everything one run measured.
type results struct {
	Started   time.Time                        `json:"started"`
	Host      string                           `json:"host"`
	CPUs      int                              `json:"cpus"`
	Rows      int                              `json:"rows"`
	Duration  string                           `json:"duration"`
	Repeat    int                              `json:"repeat"`
	Conns     int                              `json:"connections"`
	GenTime   map[int]string                   `json:"generation"`
	Main      map[string]map[string]loadResult `json:"main"` // server → endpoint → result
	RSS       map[string]int64                 `json:"peak_rss_bytes"`
	Scale     map[int]map[string]loadResult    `json:"scale"` // rows → endpoint → result (svc-api)
	Order     []string                         `json:"order"`
	HelpMS    float64                          `json:"svc_help_ms"`
	AccountMS float64                          `json:"svc_accounts_json_ms"`
	MCP       mcpResult                        `json:"mcp"`
	Notes     []string                         `json:"notes"`
}

type mcpResult struct {
	SDKus float64 `json:"sdk_us"`
	MCPus float64 `json:"mcp_us"`
	Err   string  `json:"error,omitempty"`
}

func run() error {
	s, err := loadSettings()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	defer stopAll()
	if _, err := exec.LookPath("wrk"); err != nil {
		return fmt.Errorf("wrk is not installed (scripts/bench.sh installs it with apt-get)")
	}
	tmp, err := os.MkdirTemp("", "svc-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var b [4]byte
	_, _ = rand.Read(b[:])
	runID := hex.EncodeToString(b[:])

	fmt.Fprintf(os.Stderr, "bench: run %s, building binaries in %s\n", runID, tmp)
	bins := map[string]string{}
	for _, x := range []struct{ name, dir, pkg string }{
		{"svc-api", "api-server", "./cmd/svc-api"},
		{"keys-admin", "keys-admin", "./cmd/keys-admin"},
		{"svc", "svc-cli", "./cmd/svc"},
	} {
		bin := filepath.Join(tmp, x.name)
		cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, x.pkg)
		cmd.Dir = filepath.Join(s.root, x.dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("build %s: %w\n%s", x.name, err, out)
		}
		bins[x.name] = bin
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}

	host, _ := os.Hostname()
	res := &results{Started: time.Now().UTC(), Host: host, CPUs: cpuCount(), Rows: s.rows, Duration: s.duration.String(), Repeat: s.repeat,
		Conns: s.conns, GenTime: map[int]string{}, Main: map[string]map[string]loadResult{}, RSS: map[string]int64{},
		Scale: map[int]map[string]loadResult{}}
	today := time.Now().UTC().Truncate(24 * time.Hour)
	sizes := append([]int(nil), s.scale...)
	if !slices.Contains(sizes, s.rows) {
		sizes = append(sizes, s.rows)
	}
	sort.Ints(sizes)

	for _, rows := range sizes {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := runSize(ctx, s, res, bins, self, tmp, runID, rows, today); err != nil {
			return err
		}
	}

	// CLI start-up and MCP overhead.
	res.HelpMS = medianRun(21, func() error { return exec.CommandContext(ctx, bins["svc"], "--help").Run() })
	res.MCP = mcpBench(ctx, s.root)

	if err := report(s, res); err != nil {
		return err
	}
	return nil
}

// runSize creates, fills and measures the database of one table size.
func runSize(ctx context.Context, s settings, res *results, bins map[string]string, self, tmp, runID string, rows int, today time.Time) error {
	dbName := fmt.Sprintf("bench_%s_%d", runID, rows)
	fmt.Fprintf(os.Stderr, "bench: %d rows: database %s\n", rows, dbName)
	url, err := createDatabase(ctx, s.adminURL, dbName)
	if err != nil {
		return err
	}
	if !s.keep {
		defer func() {
			if err := dropDatabase(context.WithoutCancel(ctx), s.adminURL, dbName); err != nil {
				fmt.Fprintf(os.Stderr, "bench: drop %s: %v\n", dbName, err)
			}
		}()
	}
	if out, err := exec.CommandContext(ctx, bins["svc-api"], "migrate", "--database-url", url).CombinedOutput(); err != nil {
		return fmt.Errorf("migrate: %w\n%s", err, out)
	}
	t0 := time.Now()
	if err := generate(ctx, url, rows, today); err != nil {
		return fmt.Errorf("generate %d rows: %w", rows, err)
	}
	res.GenTime[rows] = time.Since(t0).Round(time.Second).String()
	fmt.Fprintf(os.Stderr, "bench: %d rows generated in %s\n", rows, res.GenTime[rows])
	keyOut, err := exec.CommandContext(ctx, bins["keys-admin"], "create", "--database-url", url, "--org", orgID(0),
		"--user", ownerID(0), "--scopes", "accounts:read,campaigns:read,insights:read", "--expires-in-days", "7",
		"--name", "bench").Output()
	if err != nil {
		return fmt.Errorf("keys-admin create: %w", err)
	}
	key := strings.TrimSpace(string(keyOut))

	main := rows == s.rows
	eps := endpoints(today, 0, 10000)
	if main {
		eps = append(endpoints(today, 0, 5000, 10000), listEndpoints()...)
		res.Order = nil
		for _, ep := range eps {
			res.Order = append(res.Order, ep.Name)
		}
	}
	// The servers measured: the baseline (main size only) and svc-api.
	type target struct {
		name, base, bearer string
	}
	var targets []target

	var bp *proc
	if main {
		var stdout *bufio.Reader
		var err error
		bp, stdout, err = start(tmp, "baseline", nil, self, "baseline", "--database-url", url, "--org", orgID(0))
		if err != nil {
			return err
		}
		defer bp.stop()
		addr, err := stdout.ReadString('\n')
		if err != nil {
			return fmt.Errorf("baseline did not start: %s", bp.tail())
		}
		base := "http://" + strings.TrimSpace(addr)
		if err := waitReady(ctx, bp, base+"/healthz"); err != nil {
			return err
		}
		targets = append(targets, target{"baseline", base, ""})
	}

	// svc-api with the full pipeline: PostgreSQL, Redis, a real key; the
	// limits raised so that the load is not refused.
	port, err := freePort()
	if err != nil {
		return err
	}
	listen := "127.0.0.1:" + strconv.Itoa(port)
	base := "http://" + listen
	env := []string{"SVC_DATABASE_URL=" + url, "SVC_REDIS_URL=" + s.redisURL, "SVC_REDIS_NAMESPACE=bench_" + runID,
		"SVC_LISTEN_ADDR=" + listen, "SVC_LIMIT_KEY_PER_MINUTE=100000000", "SVC_LIMIT_ORG_PER_MINUTE=100000000",
		"SVC_LIMIT_IP_PER_MINUTE=100000000", "SVC_LOG_LEVEL=" + envOr("BENCH_LOG_LEVEL", "info")}
	sp, _, err := start(tmp, "svc-api", env, bins["svc-api"], "serve")
	if err != nil {
		return err
	}
	defer sp.stop()
	if err := waitReady(ctx, sp, base+"/readyz"); err != nil {
		return err
	}
	targets = append(targets, target{"svc-api", base, key})

	// Each endpoint: a warm-up of every server (caches, pools, prepared
	// statements; not counted), then s.repeat measured runs of each,
	// alternating between the servers so that a change in the machine's
	// other load affects both alike; each server's figures are those of its
	// median run by req/s. Only one server is loaded at a time.
	measured := map[string]map[string]loadResult{}
	for _, ep := range eps {
		runs := map[string][]loadResult{}
		for _, t := range targets {
			if _, err := wrk(ctx, t.base+ep.Path, t.bearer, s.conns, 2*time.Second); err != nil {
				return err
			}
		}
		for range s.repeat {
			for _, t := range targets {
				r, err := wrk(ctx, t.base+ep.Path, t.bearer, s.conns, s.duration)
				if err != nil {
					return err
				}
				fmt.Fprintf(os.Stderr, "bench: %-8s %9d rows  %-24s %8.0f req/s  p50 %6.2f ms  p99 %6.2f ms  errors %d\n",
					t.name, rows, ep.Name, r.RPS, r.P50, r.P99, r.Errors)
				runs[t.name] = append(runs[t.name], r)
			}
		}
		for name, rs := range runs {
			if measured[name] == nil {
				measured[name] = map[string]loadResult{}
			}
			measured[name][ep.Name] = median(rs)
		}
	}
	r := measured["svc-api"]
	res.Scale[rows] = map[string]loadResult{"/insights offset 0": r["/insights offset 0"], "/insights offset 10000": r["/insights offset 10000"]}
	if main {
		res.Main["baseline"] = measured["baseline"]
		res.RSS["baseline"] = bp.peakRSS()
		bp.stop()
		res.Main["svc-api"] = r
		res.RSS["svc-api"] = sp.peakRSS()
		// svc accounts -o json, end to end against this server.
		res.AccountMS = medianRun(11, func() error {
			cmd := exec.CommandContext(ctx, bins["svc"], "accounts", "-o", "json")
			cmd.Env = append(os.Environ(), "SVC_API_KEY="+key, "SVC_SITE_URL="+base)
			cmd.Stdout = nil
			out, err := cmd.CombinedOutput()
			if err != nil {
				return fmt.Errorf("svc accounts: %w: %s", err, out)
			}
			return nil
		})
	}
	sp.stop()
	// The server's log grows with every request; it is not kept.
	_ = os.Remove(sp.log)
	return nil
}

// median returns the run with the median req/s, with its own latencies
// and errors; the errors of every run are added up, so that none is hidden.
func median(rs []loadResult) loadResult {
	sorted := slices.Clone(rs)
	slices.SortFunc(sorted, func(a, b loadResult) int { return cmp.Compare(a.RPS, b.RPS) })
	m := sorted[len(sorted)/2]
	m.Errors = 0
	for _, r := range rs {
		m.Errors += r.Errors
	}
	return m
}

// medianRun runs f n times and returns the median wall time in ms (-1 on error).
func medianRun(n int, f func() error) float64 {
	var ts []float64
	for range n {
		t0 := time.Now()
		if err := f(); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return -1
		}
		ts = append(ts, float64(time.Since(t0).Microseconds())/1000)
	}
	sort.Float64s(ts)
	return ts[len(ts)/2]
}

func cpuCount() int {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "processor\t:")
}
