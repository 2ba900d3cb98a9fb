package main

// The import run of `make bench` (BENCH_MODE=import runs it alone): for
// each size, a snapshot document with that many insight rows (the shape of
// gen.go: 20 organizations, 100 accounts, 400 campaigns) is written to a
// file and imported with `svc-api import` into an empty database, then
// again unchanged (it must write no row and no change entry, in at most
// 0.35× the fresh import's time), then a document of the last 28 days'
// rows with 3 % of them restated (it must write exactly those rows and as
// many change entries; importchanges.go); beside it, in the
// same run and database, plain COPY of the same rows (pgx CopyFrom, one
// connection) into a table of the same shape and indexes
// (CREATE TABLE … (LIKE insights_daily INCLUDING ALL): the same columns,
// constraints and indexes, no triggers). Peak RSS is the child's ru_maxrss.
//
// Settings (environment):
//
//	BENCH_IMPORT_SIZES  comma-separated insight row counts (default 100000,1000000,10000000;
//	                    the 10,000,000-row document is about 5 GB on disk, removed after its run)
//	BENCH_IMPORT_DIR    where the documents are written (default the system temporary directory;
//	                    BENCH_KEEP=1 keeps them there, with the svc-api binary, beside the databases)

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Targets of the import issues (45: fresh >= 0.6x COPY, unchanged re-import
// <= 0.35x the fresh import's time).
const (
	importMaxRSS       = 100 << 20 // bytes, at every size
	importMinRatio     = 0.6       // import rows/s ÷ COPY rows/s
	importMaxUnchanged = 0.35      // unchanged re-import's time ÷ fresh import's
)

type importRow struct {
	Rows        int     `json:"rows"`
	DocBytes    int64   `json:"doc_bytes"`
	CopySeconds float64 `json:"copy_seconds"`
	CopyRate    float64 `json:"copy_rows_per_s"`
	Fresh       runStat `json:"fresh"`
	Unchanged   runStat `json:"unchanged"`
	Restate     runStat `json:"restate"`
	// Restated is the number of rows the restating document changes.
	Restated int64 `json:"restated"`
}

type runStat struct {
	Seconds float64 `json:"seconds"`
	Rate    float64 `json:"rows_per_s"`
	RSS     int64   `json:"peak_rss_bytes"`
	Err     string  `json:"error,omitempty"`
	// Written: rows of the served tables whose version the import wrote;
	// WrittenInsights: of insights_daily; Entries: change-log entries.
	Written         int64 `json:"rows_written"`
	WrittenInsights int64 `json:"insight_rows_written"`
	Entries         int64 `json:"change_entries"`
}

func runImportBench() error {
	s, err := loadSettings()
	if err != nil {
		return err
	}
	var sizes []int
	for f := range strings.SplitSeq(envOr("BENCH_IMPORT_SIZES", "100000,1000000,10000000"), ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("BENCH_IMPORT_SIZES: %q is not a row count", f)
		}
		sizes = append(sizes, n)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	tmp, err := os.MkdirTemp(envOr("BENCH_IMPORT_DIR", ""), "svc-bench-import-")
	if err != nil {
		return err
	}
	if s.keep {
		fmt.Fprintf(os.Stderr, "bench import: BENCH_KEEP=1: the documents and svc-api stay in %s\n", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	bin := filepath.Join(tmp, "svc-api")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, "./cmd/svc-api")
	cmd.Dir = filepath.Join(s.root, "api-server")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build svc-api: %w\n%s", err, out)
	}
	runID := strconv.FormatInt(time.Now().Unix(), 36)
	today := time.Now().UTC().Truncate(24 * time.Hour)
	var results []importRow
	for _, rows := range sizes {
		r, err := importSize(ctx, s, bin, tmp, runID, rows, today)
		if err != nil {
			return err
		}
		results = append(results, r)
		printImport(os.Stderr, results) // partial results survive a later failure
	}
	return writeImportReport(s, results)
}

func importSize(ctx context.Context, s settings, bin, tmp, runID string, rows int, today time.Time) (importRow, error) {
	res := importRow{Rows: rows}
	doc := filepath.Join(tmp, fmt.Sprintf("doc-%d.json", rows))
	t0 := time.Now()
	if err := writeDocument(doc, rows, today); err != nil {
		return res, err
	}
	if !s.keep {
		defer os.Remove(doc)
	}
	if fi, err := os.Stat(doc); err == nil {
		res.DocBytes = fi.Size()
	}
	fmt.Fprintf(os.Stderr, "bench import: %d rows: document %.0f MB written in %s\n", rows, float64(res.DocBytes)/(1<<20), time.Since(t0).Round(time.Second))

	dbName := fmt.Sprintf("bench_import_%s_%d", runID, rows)
	url, err := createDatabase(ctx, s.adminURL, dbName)
	if err != nil {
		return res, err
	}
	if !s.keep {
		defer dropDatabase(context.Background(), s.adminURL, dbName) //nolint:errcheck
	}
	env := append(os.Environ(), "SVC_DATABASE_URL="+url)
	if out, err := runCmd(ctx, bin, env, "migrate"); err != nil {
		return res, fmt.Errorf("migrate: %w\n%s", err, out)
	}

	// Baseline: plain COPY of the same rows into a table of the same shape.
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return res, err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CREATE TABLE bench_copy (LIKE insights_daily INCLUDING ALL)"); err != nil {
		return res, err
	}
	if _, err := conn.Exec(ctx, "CHECKPOINT"); err != nil {
		fmt.Fprintf(os.Stderr, "bench import: CHECKPOINT refused (%v)\n", err)
	}
	synced := today.Add(6 * time.Hour)
	now := time.Now().UTC()
	t0 = time.Now()
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"bench_copy"}, insightCols,
		&insightSource{i: 0, step: 1, n: rows, today: today, synced: synced, now: now}); err != nil {
		return res, fmt.Errorf("copy: %w", err)
	}
	res.CopySeconds = time.Since(t0).Seconds()
	res.CopyRate = float64(rows) / res.CopySeconds
	fmt.Fprintf(os.Stderr, "bench import: %d rows: COPY %.1f s, %.0f rows/s\n", rows, res.CopySeconds, res.CopyRate)
	if _, err := conn.Exec(ctx, "DROP TABLE bench_copy"); err != nil {
		return res, err
	}
	if _, err := conn.Exec(ctx, "CHECKPOINT"); err != nil {
		fmt.Fprintf(os.Stderr, "bench import: CHECKPOINT refused (%v)\n", err)
	}

	restateDoc := filepath.Join(tmp, fmt.Sprintf("doc-%d-restate.json", rows))
	if res.Restated, err = writeRestated(restateDoc, rows, today); err != nil {
		return res, err
	}
	if !s.keep {
		defer os.Remove(restateDoc)
	}
	for _, run := range []struct {
		name, doc string
		stat      *runStat
	}{{"into an empty database", doc, &res.Fresh}, {"again, unchanged", doc, &res.Unchanged},
		{"restating 3 % of the last 28 days", restateDoc, &res.Restate}} {
		before, err := tableWrites(ctx, conn)
		if err != nil {
			return res, err
		}
		*run.stat = timedImport(ctx, bin, env, run.doc, rows)
		if run.stat.Err == "" {
			if err := measureWritten(ctx, conn, before, run.stat); err != nil {
				return res, err
			}
		}
		fmt.Fprintf(os.Stderr, "bench import: %d rows %s: %.1f s, %.0f rows/s, peak RSS %.1f MB, %d rows (%d insights) and %d change entries written %s\n",
			rows, run.name, run.stat.Seconds, run.stat.Rate, mb(run.stat.RSS), run.stat.Written, run.stat.WrittenInsights, run.stat.Entries, run.stat.Err)
		if run.stat.Err != "" {
			break
		}
		if _, err := conn.Exec(ctx, "CHECKPOINT"); err != nil {
			fmt.Fprintf(os.Stderr, "bench import: CHECKPOINT refused (%v)\n", err)
		}
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM insights_daily").Scan(&n); err != nil {
		return res, err
	}
	if res.Fresh.Err == "" && n != rows {
		return res, fmt.Errorf("after the import insights_daily has %d rows, want %d", n, rows)
	}
	return res, nil
}

// timedImport runs svc-api import and measures its wall time and peak RSS.
func timedImport(ctx context.Context, bin string, env []string, doc string, rows int) runStat {
	cmd := exec.CommandContext(ctx, bin, "import", doc)
	cmd.Env = env
	var errOut strings.Builder
	cmd.Stderr = &errOut
	t0 := time.Now()
	err := cmd.Run()
	st := runStat{Seconds: time.Since(t0).Seconds()}
	st.Rate = float64(rows) / st.Seconds
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		st.RSS = ru.Maxrss << 10 // kilobytes on Linux
	}
	if err != nil {
		st.Err = fmt.Sprintf("%v: %s", err, lastLines(errOut.String(), 5))
	}
	return st
}

func runCmd(ctx context.Context, bin string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// writeDocument writes a snapshot document with rows insight rows, the
// same rows insightSource gives the COPY.
func writeDocument(path string, rows int, today time.Time) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	synced := today.Add(6 * time.Hour).Format(time.RFC3339)
	w.WriteString(`{"organizations":[`)
	for o := range genOrgs {
		if o > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, `{"id":%q,"name":"Org %d","subscriptionStatus":"active","trialEndsAt":null,"members":[{"userId":%q,"role":"owner"}]}`,
			orgID(o), o+1, ownerID(o))
	}
	w.WriteString("],\n\"accounts\":[")
	for o := range genOrgs {
		for a := range genAccountsPerOrg {
			if o+a > 0 {
				w.WriteByte(',')
			}
			fmt.Fprintf(w, `{"id":%q,"organizationId":%q,"platformAdAccountId":"act_%02d%d","accountName":"Account %d of org %d","currency":%q,"timezone":%q,"isActive":%t,"lastSyncAt":%q,"accessTokenEncrypted":"enc:canary-token"}`,
				accountID(o, a), orgID(o), o+1, a+1, a+1, o+1, currencies[a], timezones[a], a != 4, synced)
		}
	}
	w.WriteString("],\n\"campaigns\":[")
	for o := range genOrgs {
		for a := range genAccountsPerOrg {
			for c := range genCampaignsPerAcct {
				if o+a+c > 0 {
					w.WriteByte(',')
				}
				fmt.Fprintf(w, `{"id":%q,"accountId":%q,"name":"Campaign %d.%d","objective":"OUTCOME_SALES","status":"ACTIVE","effectiveStatus":%s,"dailyBudget":%s,"lifetimeBudget":%s,"syncedAt":%q}`,
					campaignID(o, a, c), accountID(o, a), a+1, c+1, jsonOrNull(nullIf(c == 3, "ACTIVE")),
					jsonOrNull(nullIf(c%2 == 1, "25.50")), jsonOrNull(nullIf(c%2 == 0, "1000.00")), synced)
			}
		}
	}
	w.WriteString("],\n\"insights\":[\n")
	src := &insightSource{i: 0, step: 1, n: rows, today: today, synced: today.Add(6 * time.Hour), now: time.Now()}
	for first := true; src.Next(); first = false {
		v := src.row
		if !first {
			w.WriteString(",\n")
		}
		fmt.Fprintf(w, `{"id":%q,"accountId":%q,"campaignId":%s,"date":%q,"attributionWindow":%q,"purchaseMeasurement":%q,"spend":%q,"ctr":%q,"cpc":%q,"cpm":%q,"impressions":%d,"reach":%d,"clicks":%d,"purchases":%s,"purchaseValue":%s,"roas":%s,"conversions":%d,"syncedAt":%q}`,
			v[0], v[2], jsonOrNull(v[3]), v[7].(time.Time).Format(time.DateOnly), v[8], v[9], v[10], v[11], v[12], v[13],
			v[14], v[15], v[16], jsonOrNull(v[17]), jsonOrNull(v[18]), jsonOrNull(v[19]), v[20], synced)
	}
	w.WriteString("\n]}\n")
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

func jsonOrNull(v any) string {
	if v == nil {
		return "null"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func printImport(w *os.File, results []importRow) {
	fmt.Fprintf(w, "\n%s\n", importTable(results))
}

func writeImportReport(s settings, results []importRow) error {
	host, _ := os.Hostname()
	md := fmt.Sprintf("# svc-api import bench (%s, %s, %d CPUs)\n\nCOPY: pgx CopyFrom of the same rows into `LIKE insights_daily INCLUDING ALL` (same columns, constraints and indexes), one connection, same database, same run. Unchanged: the same document imported again. Restate: the last 28 days' rows with 3 %% of them restated. Written: rows of the served tables the import inserted, updated or deleted (pg_stat_user_tables), and its change-log entries.\n\n%s",
		time.Now().UTC().Format(time.RFC3339), host, cpuCount(), importTable(results))
	fmt.Println(md)
	if err := os.MkdirAll(s.out, 0o755); err != nil {
		return err
	}
	js, _ := json.MarshalIndent(results, "", "  ")
	stamp := time.Now().UTC().Format("20060102-150405")
	if err := os.WriteFile(filepath.Join(s.out, "import-"+stamp+".md"), []byte(md), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(s.out, "import-"+stamp+".json"), js, 0o644); err != nil {
		return err
	}
	for _, r := range results {
		if !allPass(r) {
			return fmt.Errorf("import targets not met (see the table)")
		}
	}
	return nil
}
