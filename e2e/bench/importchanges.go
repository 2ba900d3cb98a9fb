package main

// The import bench's figures of issue 45: what a re-import writes.

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// servedTables are the tables an API answer reads, whose rows an
// unchanged re-import must not write.
var servedTables = []string{"ad_accounts", "campaigns", "insights_daily", "insights_daily_sums",
	"insights_daily_counts", "insights_daily_account_counts"}

// restateDays is how far back a platform restates (the last 28 days).
const restateDays = 28

// restated reports whether row i of insightSource is one the restating
// document changes: 3 % of the rows of the last 28 days.
func restated(i int) bool { return recent(i) && i%100 < 3 }

// recent reports whether row i lies in the last 28 days.
func recent(i int) bool { return (i/genOrgs)%genDays < restateDays }

// writeRestated writes the restating document: the organizations,
// accounts and campaigns of writeDocument, and its insight rows of the last
// 28 days, 3 % of them with another spend and one more click. It returns
// the number of rows restated.
func writeRestated(path string, rows int, today time.Time) (int64, error) {
	full := path + ".full"
	if err := writeDocument(full, rows, today); err != nil {
		return 0, err
	}
	defer os.Remove(full)
	in, err := os.Open(full)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer out.Close()
	w := bufio.NewWriterSize(out, 1<<20)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	var n int64
	first := true
	for sc.Scan() {
		line := sc.Text()
		var i int
		if _, err := fmt.Sscanf(line, `{"id":"ins_%09d"`, &i); err != nil {
			w.WriteString(line + "\n") // the document's head and tail
			continue
		}
		if !recent(i) {
			continue
		}
		line = strings.TrimSuffix(line, ",")
		if restated(i) {
			n++
			line = strings.Replace(line, `"spend":"`, `"spend":"1`, 1)
		}
		if !first {
			w.WriteString(",\n")
		}
		first = false
		w.WriteString(line)
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	if err := w.Flush(); err != nil {
		return 0, err
	}
	return n, out.Close()
}

// tableWrites returns, per served table, the rows inserted, updated and
// deleted so far (pg_stat_user_tables; a finished import's backend has
// reported its counts when its process exited).
func tableWrites(ctx context.Context, conn *pgx.Conn) (map[string]int64, error) {
	if _, err := conn.Exec(ctx, `SELECT pg_stat_clear_snapshot()`); err != nil {
		return nil, err
	}
	rows, err := conn.Query(ctx, `SELECT relname, n_tup_ins + n_tup_upd + n_tup_del FROM pg_stat_user_tables WHERE relname = ANY($1)`, servedTables)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var t string
		var n int64
		if err := rows.Scan(&t, &n); err != nil {
			return nil, err
		}
		out[t] = n
	}
	return out, rows.Err()
}

// measureWritten records what the last import wrote: the rows of the
// served tables it inserted, updated or deleted (the statistics' counts
// since before), and its change-log entries (by its insight_imports row's
// transaction).
func measureWritten(ctx context.Context, conn *pgx.Conn, before map[string]int64, st *runStat) error {
	time.Sleep(time.Second) // the statistics of the ended backend, flushed at its exit
	after, err := tableWrites(ctx, conn)
	if err != nil {
		return err
	}
	st.Written = 0
	for _, tb := range servedTables {
		st.Written += after[tb] - before[tb]
	}
	st.WrittenInsights = after["insights_daily"] - before["insights_daily"]
	var txid int64
	if err := conn.QueryRow(ctx, `SELECT txid::text::bigint FROM insight_imports ORDER BY id DESC LIMIT 1`).Scan(&txid); err != nil {
		return fmt.Errorf("the last import's transaction: %w", err)
	}
	return conn.QueryRow(ctx, `SELECT count(*) FROM insight_changes WHERE txid = $1::text::xid8`, fmt.Sprint(txid)).Scan(&st.Entries)
}

// importTargets are the targets of one size, each met or not.
func importTargets(r importRow) (rss, fresh, unchanged, unchangedNone, restate bool) {
	ok := func(s runStat) bool { return s.Err == "" && s.Seconds > 0 }
	rss = r.Fresh.RSS <= importMaxRSS && r.Unchanged.RSS <= importMaxRSS && r.Restate.RSS <= importMaxRSS &&
		ok(r.Fresh) && ok(r.Unchanged) && ok(r.Restate)
	fresh = ok(r.Fresh) && r.Fresh.Rate >= importMinRatio*r.CopyRate
	unchanged = ok(r.Unchanged) && ok(r.Fresh) && r.Unchanged.Seconds <= importMaxUnchanged*r.Fresh.Seconds
	unchangedNone = ok(r.Unchanged) && r.Unchanged.Written == 0 && r.Unchanged.Entries == 0
	restate = ok(r.Restate) && r.Restate.WrittenInsights == r.Restated && r.Restate.Entries == r.Restated
	return
}

func allPass(r importRow) bool {
	a, b, c, d, e := importTargets(r)
	return a && b && c && d && e
}

func importTable(results []importRow) string {
	var b strings.Builder
	b.WriteString("| insight rows | document | COPY rows/s | fresh import rows/s | ÷ COPY (target ≥ 0.6) | unchanged re-import | ÷ fresh time (target ≤ 0.35) | unchanged: rows / entries written (target 0 / 0) | restating 3 % of 28 days: insight rows / entries written (target: restated) | peak RSS fresh / unchanged / restate (target ≤ 100 MB) |\n")
	b.WriteString("|---:|---:|---:|---:|---|---:|---|---|---|---|\n")
	for _, r := range results {
		rss, fresh, unchanged, none, restate := importTargets(r)
		fmt.Fprintf(&b, "| %d | %.0f MB | %.0f | %.0f | %.2f %s | %.1f s | %.2f %s | %d / %d %s | %d / %d of %d %s | %.1f / %.1f / %.1f MB %s |\n",
			r.Rows, float64(r.DocBytes)/(1<<20), r.CopyRate, r.Fresh.Rate, r.Fresh.Rate/r.CopyRate, pf(fresh),
			r.Unchanged.Seconds, r.Unchanged.Seconds/r.Fresh.Seconds, pf(unchanged),
			r.Unchanged.Written, r.Unchanged.Entries, pf(none),
			r.Restate.WrittenInsights, r.Restate.Entries, r.Restated, pf(restate),
			mb(r.Fresh.RSS), mb(r.Unchanged.RSS), mb(r.Restate.RSS), pf(rss))
	}
	return b.String()
}

func pf(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}
