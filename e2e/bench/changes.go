package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// The changes feed (issue 42): on the main size's database, svc-api only (the
// baseline has no change log), one request at a time with nothing else
// running, then under wrk beside the other endpoints:
//
//   - a first sync's first page of 100 rows of organization 0;
//   - after a first sync of organization 0 (pages of 1000) and a
//     restatement of 3 % of its rows recorded in the change log as an import
//     records it (CONTRACT-45), the first page of 100 changes since that
//     sync's token, and the page after 10 such pages (its cursor; the window holds about 15).
//
// The target: p50 ≤ 50 ms each, and no error under load.

// changesTargetMS is the p50 target of a 100-row changes page.
const changesTargetMS = 50

// changesResult is what the changes run measured.
type changesResult struct {
	P50    map[string]float64    `json:"p50_ms"`
	Load   map[string]loadResult `json:"load"`
	Sync   string                `json:"first_sync"` // time of organization 0's first sync
	Rows   int                   `json:"first_sync_rows"`
	Logged int64                 `json:"entries"`
	Err    string                `json:"error,omitempty"`
}

// getChanges reads one page of the feed: its row count, nextCursor and
// syncToken.
func getChanges(ctx context.Context, u, bearer string) (int, string, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, "", "", err
	}
	req.Header.Set("Authorization", "Bearer "+bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return 0, "", "", fmt.Errorf("GET %s: %d %.300s %v", u, resp.StatusCode, body, err)
	}
	var p struct {
		Data []json.RawMessage `json:"data"`
		Meta struct {
			NextCursor *string `json:"nextCursor"`
			SyncToken  *string `json:"syncToken"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		return 0, "", "", err
	}
	var next, token string
	if p.Meta.NextCursor != nil {
		next = *p.Meta.NextCursor
	}
	if p.Meta.SyncToken != nil {
		token = *p.Meta.SyncToken
	}
	return len(p.Data), next, token, nil
}

// changesRun measures the feed on sp over db; under load with wrk (the main
// run's r.measure), or with goLoad when byGo (BENCH_MODE=changes).
func (r *rig) changesRun(ctx context.Context, sp server, db *benchDB, byGo bool) (res changesResult) {
	res = changesResult{P50: map[string]float64{}, Load: map[string]loadResult{}}
	if err := r.changesMeasure(ctx, sp, db, &res, byGo); err != nil {
		res.Err = err.Error()
		fmt.Fprintln(os.Stderr, "bench: changes:", err)
	}
	return res
}

func (r *rig) changesMeasure(ctx context.Context, sp server, db *benchDB, res *changesResult, byGo bool) error {
	base := sp.base + "/api/v1/developer/insights/changes"
	eps := []endpoint{{Name: "/insights/changes first sync, page 1", Path: "/api/v1/developer/insights/changes?limit=100"}}
	// A first sync of organization 0.
	t0 := time.Now()
	u := base + "?limit=1000"
	token := ""
	for token == "" {
		n, next, tok, err := getChanges(ctx, u, sp.bearer)
		if err != nil {
			return err
		}
		res.Rows += n
		token = tok
		u = base + "?limit=1000&cursor=" + url.QueryEscape(next)
	}
	res.Sync = time.Since(t0).Round(time.Millisecond).String()
	// A restatement of 3 % of its rows, as the import records it.
	conn, err := pgx.Connect(ctx, db.url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	tag, err := conn.Exec(ctx, `INSERT INTO insight_changes (organization_id, insight_id, account_id, date, kind)
		SELECT organization_id, id, account_id, date, 'upsert' FROM insights_daily
		WHERE organization_id = $1 AND abs(hashtext(id)) % 100 < 3`, orgID(0))
	if err != nil {
		return err
	}
	res.Logged = tag.RowsAffected()
	if _, err := conn.Exec(ctx, `VACUUM ANALYZE insight_changes`); err != nil {
		return err
	}
	// A sync's window ends below every transaction open in the cluster:
	// wait until it covers the entries.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		var ok bool
		if err := conn.QueryRow(ctx, `SELECT max(txid) < pg_snapshot_xmin(pg_current_snapshot()) FROM insight_changes`).Scan(&ok); err != nil {
			return err
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the change entries stayed above the snapshot horizon for a minute")
		}
	}
	since := "/api/v1/developer/insights/changes?limit=100&since=" + url.QueryEscape(token)
	eps = append(eps, endpoint{Name: "/insights/changes since, page 1", Path: since})
	// The cursor 10 pages into the window.
	u, cursor := sp.base+since, ""
	for range 10 {
		_, next, _, err := getChanges(ctx, u, sp.bearer)
		if err != nil {
			return err
		}
		if next == "" {
			return fmt.Errorf("the window of %d entries has fewer than 11 pages", res.Logged)
		}
		cursor = next
		u = base + "?limit=100&cursor=" + url.QueryEscape(next)
	}
	eps = append(eps, endpoint{Name: "/insights/changes since, page 11", Path: "/api/v1/developer/insights/changes?limit=100&cursor=" + url.QueryEscape(cursor)})
	p50, err := measureP50(ctx, []server{sp}, eps, 101)
	if err != nil {
		return err
	}
	res.P50 = p50[sp.name]
	for _, ep := range eps {
		if byGo {
			l, err := goLoad(ctx, sp.base+ep.Path, sp.bearer, r.s.conns, r.s.duration)
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "bench: %-40s %7.0f req/s  p50 %6.2f ms  p99 %6.2f ms  errors %d\n", ep.Name, l.RPS, l.P50, l.P99, l.Errors)
			res.Load[ep.Name] = l
			continue
		}
		m, err := r.measure(ctx, []server{sp}, db, ep, "  changes")
		if err != nil {
			return err
		}
		res.Load[ep.Name] = m[sp.name]
	}
	return nil
}

// runChangesBench is BENCH_MODE=changes: the changes run alone on a
// database of BENCH_ROWS rows, its load from Go (no wrk):
//
//	cd e2e && BENCH_MODE=changes BENCH_ROWS=1000000 BENCH_DURATION=5s go run ./bench
func runChangesBench() error {
	ctx, r, done, err := setUp("svc-bench-changes-", nil, "svc-api", "keys-admin")
	defer done()
	if err != nil {
		return err
	}
	db, drop, err := r.database(ctx, "changes_"+strconv.Itoa(r.s.rows), r.s.rows)
	defer drop()
	if err != nil {
		return err
	}
	sp, err := r.startAPI(ctx, "svc-api", db)
	if err != nil {
		return err
	}
	defer sp.p.stop()
	res := r.changesRun(ctx, sp, db, true)
	// An error under load: the server's own account of the failed answers.
	for _, l := range res.Load {
		if l.Errors == 0 {
			continue
		}
		if b, err := os.ReadFile(sp.p.log); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if strings.Contains(line, `"status":5`) || strings.Contains(line, `"status":4`) || strings.Contains(line, `"level":"ERROR"`) || strings.Contains(line, `"level":"WARN"`) {
					fmt.Fprintln(os.Stderr, "bench: svc-api:", line)
				}
			}
		}
		break
	}
	fmt.Printf("## Changes feed benchmark %s\n\n%d insight rows; organization 0's first sync: %d rows in %s; %d change entries since its token.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), r.s.rows, res.Rows, res.Sync, res.Logged)
	fmt.Printf("| target | measured | result |\n|---|---:|---|\n")
	for _, t := range changesTargets(res) {
		fmt.Printf("| %s | %s | **%s** |\n", t.name, t.value, verdict(t))
	}
	if res.Err != "" {
		return fmt.Errorf("%s", res.Err)
	}
	return nil
}

// changesTargets are the targets of issue 42 on c.
func changesTargets(c changesResult) []target {
	var ts []target
	for _, name := range []string{"/insights/changes first sync, page 1", "/insights/changes since, page 1", "/insights/changes since, page 11"} {
		v, ok := c.P50[name]
		ts = append(ts, target{fmt.Sprintf("%s (100 rows) p50 ≤ %d ms, one request at a time (issue 42)", name, changesTargetMS),
			ms(v) + " ms", ok && v <= changesTargetMS, ok})
		l, ok := c.Load[name]
		ts = append(ts, target{name + ": no error under load", fmt.Sprintf("%d errors, %.0f req/s, p50 %.2f ms", l.Errors, l.RPS, l.P50),
			ok && l.Errors == 0, ok})
	}
	return ts
}
