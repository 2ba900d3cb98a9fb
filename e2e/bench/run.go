package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
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
	// SummaryP50 is the p50 of the summary endpoints one request at a time,
	// per server (summary.go; issue 34).
	SummaryP50 summaryP50 `json:"summary_p50_ms"`
	// Conditional is the issue 43 run: compression and 304s (conditional.go).
	Conditional conditionalResult `json:"conditional"`
	// Changes is the changes feed's run (changes.go; issue 42).
	Changes changesResult  `json:"changes"`
	Targets []targetResult `json:"targets"`
	Notes   []string       `json:"notes"`
}

type mcpResult struct {
	SDKus float64 `json:"sdk_us"`
	MCPus float64 `json:"mcp_us"`
	Err   string  `json:"error,omitempty"`
}

func run() error {
	ctx, r, done, err := setUp("svc-bench-", []string{"wrk"}, "svc-api", "keys-admin", "svc")
	defer done()
	if err != nil {
		return err
	}
	s := r.s
	host, _ := os.Hostname()
	res := &results{Started: time.Now().UTC(), Host: host, CPUs: cpuCount(), Rows: s.rows, Duration: s.duration.String(), Repeat: s.repeat,
		Conns: s.conns, GenTime: map[int]string{}, Main: map[string]map[string]loadResult{}, RSS: map[string]int64{},
		Scale: map[int]map[string]loadResult{}}
	sizes := append([]int(nil), s.scale...)
	if !slices.Contains(sizes, s.rows) {
		sizes = append(sizes, s.rows)
	}
	sort.Ints(sizes)

	for _, rows := range sizes {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := runSize(ctx, r, res, rows); err != nil {
			return err
		}
	}

	// CLI start-up and MCP overhead.
	res.HelpMS = medianRun(21, func() error { return exec.CommandContext(ctx, r.bins["svc"], "--help").Run() })
	res.MCP = mcpBench(ctx, s.root)

	return report(s, res)
}

// runSize creates, fills and measures the database of one table size: the
// baseline (main size only) and svc-api.
func runSize(ctx context.Context, r *rig, res *results, rows int) error {
	db, drop, err := r.database(ctx, strconv.Itoa(rows), rows)
	defer drop()
	if err != nil {
		return err
	}
	res.GenTime[rows] = db.generated.Round(time.Second).String()

	main := rows == r.s.rows
	eps := endpoints(r.today, 0, 10000)
	if main {
		eps = append(endpoints(r.today, 0, 5000, 10000), listEndpoints()...)
		eps = append(eps, summaryEndpoints(r.today)...) // issue 34: svc-api and the same aggregate as plain SQL
		res.Order = nil
		for _, ep := range eps {
			res.Order = append(res.Order, ep.Name)
		}
	}
	var servers []server
	if main {
		bp, err := r.startBaseline(ctx, db)
		if err != nil {
			return err
		}
		defer bp.p.stop()
		servers = append(servers, bp)
	}
	sp, err := r.startAPI(ctx, "svc-api", db)
	if err != nil {
		return err
	}
	defer sp.p.stop()
	servers = append(servers, sp)

	measured := map[string]map[string]loadResult{}
	for _, ep := range eps {
		m, err := r.measure(ctx, servers, db, ep, fmt.Sprintf("%9d rows", rows))
		if err != nil {
			return err
		}
		for name, lr := range m {
			if measured[name] == nil {
				measured[name] = map[string]loadResult{}
			}
			measured[name][ep.Name] = lr
		}
	}
	if main {
		// The summary alone, one request at a time: nothing else running.
		if res.SummaryP50, err = measureP50(ctx, servers, summaryEndpoints(r.today), 101); err != nil {
			return err
		}
	}
	if main {
		res.Conditional = r.measureConditional(ctx, sp) // issue 43
		if e := res.Conditional.Err; e != "" {
			res.Notes = append(res.Notes, "Issue 43 run failed: "+e)
		}
		res.Changes = r.changesRun(ctx, sp, db, false) // issue 42: svc-api only, after the others (it writes the change log)
	}
	m := measured["svc-api"]
	res.Scale[rows] = map[string]loadResult{"/insights offset 0": m["/insights offset 0"], "/insights offset 10000": m["/insights offset 10000"]}
	if main {
		res.Main["baseline"] = measured["baseline"]
		res.RSS["baseline"] = servers[0].p.peakRSS()
		servers[0].p.stop()
		res.Main["svc-api"] = m
		res.RSS["svc-api"] = sp.p.peakRSS()
		// svc accounts -o json, end to end against this server.
		res.AccountMS = medianRun(11, func() error {
			cmd := exec.CommandContext(ctx, r.bins["svc"], "accounts", "-o", "json")
			cmd.Env = append(os.Environ(), "SVC_API_KEY="+db.key, "SVC_SITE_URL="+sp.base)
			out, err := cmd.CombinedOutput()
			if err != nil {
				return fmt.Errorf("svc accounts: %w: %s", err, out)
			}
			return nil
		})
	}
	sp.p.stop()
	// The server's log grows with every request; it is not kept.
	_ = os.Remove(sp.p.log)
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
