package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

var reBench = regexp.MustCompile(`(?m)^BenchmarkToolCall/(sdk|mcp)-?\d*\s+\d+\s+([0-9.]+) ns/op`)

// mcpBench runs svc-mcp's BenchmarkToolCall: the same svc_accounts request
// through the SDK directly and as an MCP tools/call.
func mcpBench(ctx context.Context, root string) mcpResult {
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", "^BenchmarkToolCall$", "-benchtime", "2s", "-count", "1", ".")
	cmd.Dir = filepath.Join(root, "svc-mcp")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return mcpResult{Err: fmt.Sprintf("%v: %s", err, lastLines(string(out), 5))}
	}
	var r mcpResult
	for _, m := range reBench.FindAllStringSubmatch(string(out), -1) {
		v, _ := strconv.ParseFloat(m[2], 64)
		if m[1] == "sdk" {
			r.SDKus = v / 1000
		} else {
			r.MCPus = v / 1000
		}
	}
	if r.SDKus == 0 || r.MCPus == 0 {
		r.Err = "no benchmark result in: " + lastLines(string(out), 5)
	}
	return r
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(l[max(0, len(l)-n):], " | ")
}

type target struct {
	name, value string
	pass        bool
	ran         bool
}

func verdict(t target) string {
	switch {
	case !t.ran:
		return "NOT RUN"
	case t.pass:
		return "PASS"
	}
	return "FAIL"
}

// targetResult is a target as written to the JSON results.
type targetResult struct {
	Name     string `json:"name"`
	Measured string `json:"measured"`
	Result   string `json:"result"`
}

// targets returns the targets of issue 21 point 7, and the other checks,
// each marked with what was measured.
func targets(res *results, sizes []int) (issue, other []target) {
	base, svc := res.Main["baseline"], res.Main["svc-api"]
	ratio := func(ep string) (float64, bool) {
		x, y := base[ep], svc[ep]
		return y.RPS / x.RPS, x.RPS > 0 && y.RPS > 0
	}
	for _, t := range []struct {
		ep  string
		min float64
	}{{"/insights offset 0", 0.95}, {"/accounts", 0.60}, {"/campaigns", 0.65},
		{"/insights offset 5000", 1.0}, {"/insights offset 10000", 1.0}} {
		r, ok := ratio(t.ep)
		issue = append(issue, target{fmt.Sprintf("%s ≥ %.2f× baseline req/s", t.ep, t.min), fmt.Sprintf("%.2f×", r), ok && r >= t.min, ok})
	}
	p99, bp99 := svc["/insights offset 0"].P99, base["/insights offset 0"].P99
	issue = append(issue, target{"svc-api p99 ≤ baseline p99 at /insights offset 0 (same run)",
		fmt.Sprintf("%s ms vs %s ms", ms(p99), ms(bp99)), p99 > 0 && bp99 > 0 && p99 <= bp99, p99 > 0 && bp99 > 0})
	rss := mb(res.RSS["svc-api"])
	issue = append(issue, target{"svc-api peak RSS ≤ 60 MB", fmt.Sprintf("%.1f MB", rss), rss > 0 && rss <= 60, rss > 0})
	small, large := 10000, 10000000
	for _, ep := range []string{"/insights offset 0", "/insights offset 10000"} {
		a, okA := res.Scale[small][ep]
		z, okZ := res.Scale[large][ep]
		name := fmt.Sprintf("scale: %s p50 at 10,000,000 rows ≤ 1.5× at 10,000", ep)
		if !okA || !okZ {
			// Report what ran: the largest size measured, marked as partial.
			if len(sizes) > 0 {
				biggest := slices.Max(sizes)
				if r, ok := res.Scale[biggest][ep]; ok && okA && biggest > small {
					name += fmt.Sprintf(" (10,000,000 not run; at %d rows: %.2f×)", biggest, r.P50/a.P50)
				}
			}
			issue = append(issue, target{name: name, value: "-", ran: false})
			continue
		}
		issue = append(issue, target{name, fmt.Sprintf("%.2f×", z.P50/a.P50), z.P50 <= 1.5*a.P50, true})
	}

	var errs int64
	for _, r := range svc {
		errs += r.Errors
	}
	other = append(other, target{"no errors under load (svc-api)", strconv.FormatInt(errs, 10), errs == 0, len(svc) > 0})
	other = append(other, target{"`svc --help` ≤ 15 ms", ms(res.HelpMS) + " ms", res.HelpMS > 0 && res.HelpMS <= 15, res.HelpMS > 0})
	d := (res.MCP.MCPus - res.MCP.SDKus) / 1000
	other = append(other, target{"MCP tools/call ≤ SDK call + 2 ms", ms(d) + " ms more", res.MCP.Err == "" && d <= 2, res.MCP.Err == ""})
	return issue, other
}

func ms(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// report prints the Markdown table and writes it, the JSON results and the
// chart under s.out.
func report(s settings, res *results) error {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	base, svc := res.Main["baseline"], res.Main["svc-api"]
	w("## Benchmark %s\n\n", res.Started.Format("2006-01-02 15:04 MST"))
	w("%d CPUs, loopback, wrk -t2 -c%d, %d runs of %s per server and endpoint after a 2 s warm-up, alternating between "+
		"the servers; each figure is from the run with the median req/s. %d insight rows (20 organizations, 400 days); "+
		"/insights reads a 90-day window (`from`=today−89, `to`=today).\n\n", res.CPUs, res.Conns, res.Repeat, res.Duration, res.Rows)
	w("| endpoint | server | req/s | p50 ms | p99 ms | errors | CPU ms/req: server | PostgreSQL | Redis | total | machine busy | svc-api / baseline |\n")
	w("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, name := range res.Order {
		x, y := base[name], svc[name]
		for _, srv := range []struct {
			name string
			r    loadResult
		}{{"baseline", x}, {"svc-api", y}} {
			r, cmp := srv.r, ""
			if srv.name == "svc-api" && x.RPS > 0 && x.CPU.Total > 0 {
				cmp = fmt.Sprintf("%.2f× req/s, %.2f× CPU", y.RPS/x.RPS, y.CPU.Total/x.CPU.Total)
			}
			w("| %s | %s | %.0f | %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %.0f %% | %s |\n", name, srv.name, r.RPS, ms(r.P50), ms(r.P99),
				r.Errors, r.CPU.Server, r.CPU.Postgres, r.CPU.Redis, r.CPU.Total, r.CPU.MachineBusy, cmp)
		}
	}
	w("\nCPU per request: utime+stime from /proc over the measured run divided by its requests; \"server\" is the " +
		"baseline or svc-api process, PostgreSQL the backends connected to the run's database, Redis the redis-server " +
		"at BENCH_REDIS_URL's port; \"machine busy\" is the share of all cores busy during the run (wrk included).\n")
	w("\nPeak RSS: baseline %.1f MB, svc-api %.1f MB.\n\n", mb(res.RSS["baseline"]), mb(res.RSS["svc-api"]))

	sizes := make([]int, 0, len(res.Scale))
	for n := range res.Scale {
		sizes = append(sizes, n)
	}
	sort.Ints(sizes)
	w("Scale (svc-api, /insights?limit=50, same load):\n\n| rows | generated in | offset 0 p50 / p99 ms | req/s | offset 10000 p50 / p99 ms | req/s |\n|---:|---:|---:|---:|---:|---:|\n")
	for _, n := range sizes {
		a, z := res.Scale[n]["/insights offset 0"], res.Scale[n]["/insights offset 10000"]
		w("| %d | %s | %s / %s | %.0f | %s / %s | %.0f |\n", n, res.GenTime[n], ms(a.P50), ms(a.P99), a.RPS, ms(z.P50), ms(z.P99), z.RPS)
	}
	w("\nClients: `svc --help` %s ms (median of 21); `svc accounts -o json` end to end %s ms (median of 11); ",
		ms(res.HelpMS), ms(res.AccountMS))
	if res.MCP.Err != "" {
		w("MCP benchmark failed: %s\n\n", res.MCP.Err)
	} else {
		w("svc_accounts as MCP tools/call %.0f µs vs the same SDK call %.0f µs (+%.0f µs).\n\n", res.MCP.MCPus, res.MCP.SDKus, res.MCP.MCPus-res.MCP.SDKus)
	}

	w("Summary (issue 34): the /insights/summary rows above are svc-api and, as the baseline, the same aggregate as " +
		"plain SQL through pgx (`bench baseline`); one request at a time, with nothing else running, p50 ")
	for _, ep := range summaryEndpoints(res.Started) {
		w("%s: svc-api %s ms, plain SQL %s ms; ", ep.Name, ms(res.SummaryP50["svc-api"][ep.Name]), ms(res.SummaryP50["baseline"][ep.Name]))
	}
	w("target ≤ %d ms.\n\n", summaryTargetMS)

	w("Changes feed (issue 42): a first sync of organization 0 (%d rows, pages of 1000) took %s; then %d change entries "+
		"(3 %% of its rows restated) were recorded and the pages since its token measured, svc-api only.\n\n", res.Changes.Rows, res.Changes.Sync, res.Changes.Logged)
	issue, other := targets(res, sizes)
	res.Targets = nil
	for _, g := range []struct {
		title string
		ts    []target
	}{{"Targets (issue 21, point 7)", issue}, {"Targets (issue 34: the summary)", summaryTargets(res.SummaryP50)},
		{"Targets (issue 43: compression and 304s)", conditionalTargets(res.Conditional)},
		{"Targets (issue 42: the changes feed)", changesTargets(res.Changes)}, {"Other checks", other}} {
		w("%s:\n\n| target | measured | result |\n|---|---:|---|\n", g.title)
		for _, t := range g.ts {
			w("| %s | %s | **%s** |\n", t.name, t.value, verdict(t))
			res.Targets = append(res.Targets, targetResult{t.name, t.value, verdict(t)})
		}
		w("\n")
	}
	for _, n := range res.Notes {
		w("\n%s\n", n)
	}

	md := b.String()
	fmt.Println(md)
	if err := os.MkdirAll(s.out, 0o755); err != nil {
		return err
	}
	stamp := res.Started.Format("20060102-150405")
	js, _ := json.MarshalIndent(res, "", "  ")
	files := map[string][]byte{"bench-" + stamp + ".md": []byte(md), "bench-" + stamp + ".json": js, "latest.md": []byte(md)}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(s.out, name), data, 0o644); err != nil {
			return err
		}
	}
	png, err := chart(res, sizes)
	if err != nil {
		return err
	}
	for _, name := range []string{"bench-" + stamp + ".png", "latest.png"} {
		if err := os.WriteFile(filepath.Join(s.out, name), png, 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "bench: written %s/bench-%s.{md,json,png} (and latest.md, latest.png) at %s\n", s.out, stamp, time.Now().Format(time.TimeOnly))
	return nil
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }
