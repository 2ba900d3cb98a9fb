package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// The summary run (issue 34): GET /insights/summary of organization 0 over
// the longest window (90 days), campaign-level rows in total and per
// campaign, from svc-api and, as the baseline, from the same aggregate as
// plain SQL through pgx over the rows themselves (baseline.go,
// baselineSummary; svc-api adds the per-day sums its migration keeps,
// insights_daily_sums, instead): req/s and CPU per request of each under
// load, and the p50 of one request at a time with nothing else running,
// judged against the target of 50 ms.
//
// `make bench` measures it in the main run (the endpoint beside the lists,
// under wrk; the p50 after it). BENCH_MODE=summary runs it alone, without
// wrk (a Go load generator of BENCH_CONNECTIONS connections), on a
// database of BENCH_ROWS rows:
//
//	cd e2e && BENCH_MODE=summary BENCH_ROWS=1000000 BENCH_DURATION=5s BENCH_REPEAT=1 go run ./bench

// summaryTargetMS is the p50 target of the 90-day summary (issue 34).
const summaryTargetMS = 50

// summaryEndpoints are the measured summary requests: the totals and the
// per-campaign groups of organization 0's campaign-level rows, 90 days, and
// the top 5 campaigns per currency compared with the 90 days before.
func summaryEndpoints(today time.Time) []endpoint {
	from := today.AddDate(0, 0, -89).Format(time.DateOnly)
	to := today.Format(time.DateOnly)
	var eps []endpoint
	for _, g := range []string{"total", "campaign"} {
		eps = append(eps, endpoint{Name: "/insights/summary 90 days by " + g,
			Path: fmt.Sprintf("/api/v1/developer/insights/summary?level=campaign&groupBy=%s&limit=100&from=%s&to=%s", g, from, to)})
	}
	// The answers of issue 46 in one request: the top 5 campaigns by spend
	// of each currency over 90 days, compared with the 90 days before (the
	// baseline server ignores sort, top and the comparison: its figure is the
	// plain aggregate's).
	before, beforeTo := today.AddDate(0, 0, -179).Format(time.DateOnly), today.AddDate(0, 0, -90).Format(time.DateOnly)
	eps = append(eps, endpoint{Name: "/insights/summary 90 days by campaign, sort -spend, top 5, compared",
		Path: fmt.Sprintf("/api/v1/developer/insights/summary?level=campaign&groupBy=campaign&sort=-spend&top=5&limit=100&from=%s&to=%s&compareFrom=%s&compareTo=%s",
			from, to, before, beforeTo)})
	return eps
}

// summaryP50 is the p50 of one request at a time (nothing else running),
// per server and summary endpoint.
type summaryP50 map[string]map[string]float64

// sequentialP50 sends n requests one after another on one connection
// (after 5 not counted) and returns the median latency in ms; every
// answer must be 200.
func sequentialP50(ctx context.Context, url, bearer string, n int) (float64, error) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	var ts []float64
	for i := range n + 5 {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return 0, err
		}
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		t0 := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return 0, err
		}
		if resp.StatusCode != http.StatusOK {
			return 0, fmt.Errorf("%s: %d %.300s", url, resp.StatusCode, body)
		}
		if i >= 5 {
			ts = append(ts, float64(time.Since(t0).Microseconds())/1000)
		}
	}
	slices.Sort(ts)
	return ts[len(ts)/2], nil
}

// measureP50 measures sequentialP50 (n requests) of every summary endpoint
// on every server.
func measureP50(ctx context.Context, servers []server, eps []endpoint, n int) (summaryP50, error) {
	out := summaryP50{}
	for _, sv := range servers {
		out[sv.name] = map[string]float64{}
		for _, ep := range eps {
			p50, err := sequentialP50(ctx, sv.base+ep.Path, sv.bearer, n)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(os.Stderr, "bench: %-8s %-36s one at a time: p50 %6.2f ms\n", sv.name, ep.Name, p50)
			out[sv.name][ep.Name] = p50
		}
	}
	return out, nil
}

// summaryTargets are the targets of issue 34 on p (svc-api's p50s).
func summaryTargets(p summaryP50) []target {
	var ts []target
	for _, ep := range summaryEndpoints(time.Now()) {
		v, ok := p["svc-api"][ep.Name]
		ts = append(ts, target{fmt.Sprintf("%s p50 ≤ %d ms, one request at a time (issue 34)", ep.Name, summaryTargetMS),
			ms(v) + " ms", ok && v <= summaryTargetMS, ok})
	}
	return ts
}

// goLoad is wrk's run without wrk: conns connections sending GET url for d;
// req/s, p50, p99 and errors (non-200 answers and failures).
func goLoad(ctx context.Context, url, bearer string, conns int, d time.Duration) (loadResult, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}, Timeout: 5 * time.Second}
	var (
		mu    sync.Mutex
		lat   []float64
		errs  atomic.Int64
		wg    sync.WaitGroup
		start = time.Now()
	)
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []float64
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
				if bearer != "" {
					req.Header.Set("Authorization", "Bearer "+bearer)
				}
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					if ctx.Err() == nil {
						errs.Add(1)
					}
					continue
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if ctx.Err() != nil {
					break
				}
				if err != nil || resp.StatusCode != http.StatusOK {
					errs.Add(1)
				}
				mine = append(mine, float64(time.Since(t0).Microseconds())/1000)
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	el := time.Since(start).Seconds()
	if len(lat) == 0 {
		return loadResult{}, fmt.Errorf("%s: no answer in %s", url, d)
	}
	slices.Sort(lat)
	return loadResult{RPS: float64(len(lat)) / el, P50: lat[len(lat)/2], P99: lat[len(lat)*99/100],
		Requests: int64(len(lat)), Errors: errs.Load()}, nil
}

// runSummaryBench is BENCH_MODE=summary.
func runSummaryBench() error {
	ctx, r, done, err := setUp("svc-bench-summary-", nil, "svc-api", "keys-admin")
	defer done()
	if err != nil {
		return err
	}
	db, drop, err := r.database(ctx, "summary_"+strconv.Itoa(r.s.rows), r.s.rows)
	defer drop()
	if err != nil {
		return err
	}
	bp, err := r.startBaseline(ctx, db)
	if err != nil {
		return err
	}
	defer bp.p.stop()
	sp, err := r.startAPI(ctx, "svc-api", db)
	if err != nil {
		return err
	}
	defer sp.p.stop()
	servers := []server{bp, sp}
	eps := summaryEndpoints(r.today)
	// Nothing else running: the p50 first, before any load.
	p50, err := measureP50(ctx, servers, eps, 101)
	if err != nil {
		return err
	}
	fmt.Printf("## Summary benchmark %s\n\n%d insight rows (20 organizations, 400 days): organization 0 has %d, "+
		"about %d of them in the 90-day window. Load: Go client, %d connections, %d runs of %s per server and endpoint "+
		"(median run by req/s); p50 alone: 101 requests one at a time on one connection, before any load.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), r.s.rows, r.s.rows/genOrgs, r.s.rows/genOrgs*90/genDays,
		r.s.conns, r.s.repeat, r.s.duration)
	fmt.Printf("| endpoint | server | p50 alone ms | req/s | p50 ms | p99 ms | errors | CPU ms/req: server | PostgreSQL | Redis | total |\n")
	fmt.Printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, ep := range eps {
		for _, sv := range servers {
			var runs []loadResult
			for range r.s.repeat {
				m := r.meter(sv, db)
				before, t0 := m.sample(), time.Now()
				res, err := goLoad(ctx, sv.base+ep.Path, sv.bearer, r.s.conns, r.s.duration)
				if err != nil {
					return err
				}
				res.CPU = perRequest(used(before, m.sample()), res.Requests, time.Since(t0).Seconds())
				runs = append(runs, res)
			}
			x := median(runs)
			fmt.Printf("| %s | %s | %s | %.0f | %s | %s | %d | %.3f | %.3f | %.3f | %.3f |\n", ep.Name, sv.name,
				ms(p50[sv.name][ep.Name]), x.RPS, ms(x.P50), ms(x.P99), x.Errors, x.CPU.Server, x.CPU.Postgres, x.CPU.Redis, x.CPU.Total)
		}
	}
	fmt.Printf("\n| target | measured | result |\n|---|---:|---|\n")
	for _, t := range summaryTargets(p50) {
		fmt.Printf("| %s | %s | **%s** |\n", t.name, t.value, verdict(t))
	}
	return nil
}
