package e2e

import (
	"context"
	stdsql "database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adsnap/svc/e2e/internal/harness"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	_ "modernc.org/sqlite"             // database/sql driver "sqlite"
)

// The changes feed, end to end (issue 42, DESIGN §4b): svc-api serve over a
// fresh database, a client keeping a copy through GET /insights/changes, and
// writers committing in parallel.
//
// TestChangesFeedExact's writers are imports as the change-log contract
// (CONTRACT-45, migration 20261129100000_change_log) defines them: in one
// transaction each, they change rows of the organization (restatements of
// the last 0–28 days, new rows, identical re-imports that change nothing,
// removals) and record one entry per row changed or removed. They write the
// tables directly, so that a run costs a few milliseconds and a thousand
// runs with up to four concurrent imports fit in seconds; the import
// command's own writes are covered by TestChangesFeedImports and
// TestSyncCommand, which run svc-api import.

// changesEnv is a database, svc-api serve over it and keys.
type changesEnv struct {
	dialect string
	db      *stdsql.DB
	srv     *harness.Server
	keys    map[string]string // alpha (every scope), beta, alpha_a (accounts:read)
	dbURL   string
	bin     harness.Binaries
	fix     *harness.Fixture
	// contract, when set, checks every answer of get against openapi.yaml.
	contract *harness.Contract
}

// newChangesEnv migrates a fresh database, imports the fixture, creates the
// keys and starts one server (limits raised unless extra sets them).
func newChangesEnv(t *testing.T, dialect string, extra ...string) *changesEnv {
	t.Helper()
	ctx := context.Background()
	bin, err := binaries()
	if err != nil {
		t.Fatal(err)
	}
	e := &changesEnv{dialect: dialect, bin: bin, keys: map[string]string{}, fix: harness.NewFixture(today())}
	if dialect == "postgres" {
		u, drop, err := harness.FreshDatabase(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(drop)
		e.dbURL = u
		e.db, err = stdsql.Open("pgx", u)
		if err != nil {
			t.Fatal(err)
		}
	} else {
		path := filepath.Join(t.TempDir(), "svc.db")
		e.dbURL = "sqlite:" + path
		e.db, err = stdsql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_txlock=immediate")
		if err != nil {
			t.Fatal(err)
		}
	}
	e.db.SetMaxIdleConns(8) // the imports' connections stay open between runs
	t.Cleanup(func() { e.db.Close() })
	dbEnv := []string{"SVC_DATABASE_URL=" + e.dbURL}
	for _, args := range [][]string{{"migrate"}, {"import", "-"}} {
		if out, errOut, code, err := harness.Run(ctx, bin.API, dbEnv, string(e.fix.JSON()), args...); err != nil || code != 0 {
			t.Fatalf("svc-api %v: exit %d %v\n%s%s", args, code, err, out, errOut)
		}
	}
	for name, s := range map[string][2]string{"alpha": {harness.OrgAlpha, allScopes}, "beta": {harness.OrgBeta, allScopes},
		"alpha_a": {harness.OrgAlpha, "accounts:read"}} {
		out, errOut, code, err := harness.Run(ctx, bin.KeysAdmin, dbEnv, "", "create", "--org", s[0], "--user", e.fix.Owner[s[0]],
			"--scopes", s[1], "--expires-in-days", "30", "--name", name)
		if err != nil || code != 0 {
			t.Fatalf("keys-admin create: exit %d %v\n%s", code, err, errOut)
		}
		e.keys[name] = strings.TrimSpace(out)
	}
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	env := append([]string{"SVC_DATABASE_URL=" + e.dbURL, fmt.Sprintf("SVC_LISTEN_ADDR=127.0.0.1:%d", port),
		fmt.Sprintf("SVC_SITE_URL=http://127.0.0.1:%d", port), "SVC_DATABASE_DEADLINE=10s",
		"SVC_LIMIT_KEY_PER_MINUTE=1000000", "SVC_LIMIT_ORG_PER_MINUTE=1000000", "SVC_LIMIT_IP_PER_MINUTE=1000000"}, extra...)
	if e.srv, err = harness.StartServer(bin.API, port, env, "serve"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.srv.Stop() }) //nolint:errcheck
	return e
}

// get sends GET {base}/insights/changes?q with key.
func (e *changesEnv) get(t *testing.T, q url.Values, key string) (int, []byte) {
	t.Helper()
	resp, body, err := harness.Get(t.Context(), http.DefaultClient, e.srv.URL+"/api/v1/developer/insights/changes?"+q.Encode(), key)
	if err != nil {
		t.Fatal(err)
	}
	if e.contract != nil {
		if err := e.contract.Check(t.Context(), resp, body); err != nil {
			t.Error(err)
		}
	}
	return resp.StatusCode, body
}

// syncStats count what a client read.
type syncStats struct {
	syncs, requests, upserts, deletes, phantoms int
}

// copyClient is a client's copy: id → spend, and its token.
type copyClient struct {
	rows  map[string]string
	token string
	stats syncStats
}

// sync reads one whole sync into c, pages of a random limit; it fails on a
// row read twice in one sync and on an upsert of a version the copy already
// holds (every write in these tests gives a row a spend never used before, so
// an upsert equal to the copy is a change read twice).
func (e *changesEnv) sync(t *testing.T, c *copyClient, rng *rand.Rand) error {
	limit := []int{1, 7, 100, 1000}[rng.IntN(4)]
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	if c.token != "" {
		q.Set("since", c.token)
	}
	seen := map[string]bool{}
	first := c.token == ""
	if first {
		c.rows = map[string]string{}
	}
	for {
		status, body := e.get(t, q, e.keys["alpha"])
		c.stats.requests++
		if status != http.StatusOK {
			return fmt.Errorf("status %d: %s", status, body)
		}
		var p struct {
			Data []struct {
				Change  string `json:"change"`
				ID      string `json:"id"`
				Insight struct {
					ID    string `json:"id"`
					Spend string `json:"spend"`
				} `json:"insight"`
			} `json:"data"`
			Meta struct {
				NextCursor *string `json:"nextCursor"`
				SyncToken  *string `json:"syncToken"`
			} `json:"meta"`
		}
		if err := json.Unmarshal(body, &p); err != nil {
			return err
		}
		for _, ch := range p.Data {
			id := ch.ID
			if ch.Change == "upsert" {
				id = ch.Insight.ID
			}
			if seen[id] {
				return fmt.Errorf("row %s read twice in one sync", id)
			}
			seen[id] = true
			switch ch.Change {
			case "upsert":
				if old, ok := c.rows[id]; ok && old == ch.Insight.Spend && !first {
					return fmt.Errorf("row %s re-read unchanged (spend %s): a change read twice", id, old)
				}
				c.rows[id] = ch.Insight.Spend
				c.stats.upserts++
			case "delete":
				if _, ok := c.rows[id]; !ok {
					c.stats.phantoms++ // added and removed between two syncs
				}
				delete(c.rows, id)
				c.stats.deletes++
			default:
				return fmt.Errorf("change %q", ch.Change)
			}
		}
		switch {
		case p.Meta.NextCursor != nil && p.Meta.SyncToken == nil:
			q = url.Values{"limit": {strconv.Itoa(limit)}, "cursor": {*p.Meta.NextCursor}}
		case p.Meta.NextCursor == nil && p.Meta.SyncToken != nil:
			c.token = *p.Meta.SyncToken
			c.stats.syncs++
			return nil
		default:
			return fmt.Errorf("meta %s: exactly one of nextCursor and syncToken", body)
		}
	}
}

// serverRows are the organization's rows, id → spend, read directly.
func (e *changesEnv) serverRows(t *testing.T, org string) map[string]string {
	t.Helper()
	rows, err := e.db.QueryContext(t.Context(), e.sql(`SELECT id, CAST(spend AS TEXT) FROM insights_daily WHERE organization_id = ?`), org)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, spend string
		if err := rows.Scan(&id, &spend); err != nil {
			t.Fatal(err)
		}
		out[id] = spend
	}
	return out
}

// sql turns ? placeholders into $n on PostgreSQL.
func (e *changesEnv) sql(q string) string {
	if e.dialect != "postgres" {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// spendSeq makes every written spend unique.
var spendSeq atomic.Int64

// randomImport is one import as the contract defines its writes, in one
// transaction: some of restate (rows of the last 0–28 days get new values),
// add (new rows), same (an identical re-import: values written unchanged,
// no entry) and remove (rows removed, as a complete window does). It is
// retried when PostgreSQL picks it as a deadlock's victim.
func (e *changesEnv) randomImport(t *testing.T, rng *rand.Rand, org string) error {
	for try := 0; ; try++ {
		err := e.importOnce(t.Context(), rng, org)
		if err == nil || try == 5 {
			return err
		}
	}
}

func (e *changesEnv) importOnce(ctx context.Context, rng *rand.Rand, org string) error {
	tx, err := e.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck
	if e.dialect == "postgres" {
		// No WAL flush at commit: a commit is visible exactly as with one
		// (only its durability waits), and a run costs no fsync.
		if _, err := tx.ExecContext(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
			return err
		}
	}
	days := rng.IntN(29)
	since := today().AddDate(0, 0, -days).Format(time.DateOnly)
	n := 1 + rng.IntN(6)
	order := "random()"
	ids, err := queryIDs(ctx, tx, e.sql(`SELECT id FROM insights_daily WHERE organization_id = ? AND date >= ? ORDER BY `+order+` LIMIT ?`), org, since, n)
	if err != nil {
		return err
	}
	slices.Sort(ids) // rows locked in one order: concurrent imports wait, never deadlock
	entry := e.sql(`INSERT INTO insight_changes (organization_id, insight_id, account_id, date, kind, recorded_at)
		SELECT organization_id, id, account_id, date, ?, ? FROM insights_daily WHERE id = ?`)
	now := time.Now().UTC().Format(time.RFC3339Nano)
	for _, id := range ids {
		switch op := rng.IntN(10); {
		case op < 5: // restate
			spend := fmt.Sprintf("%d.25", spendSeq.Add(1))
			if _, err := tx.ExecContext(ctx, e.sql(`UPDATE insights_daily SET spend = ? WHERE id = ?`), spend, id); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, entry, "upsert", now, id); err != nil {
				return err
			}
		case op < 7: // an identical re-import: nothing differs, nothing recorded
			if _, err := tx.ExecContext(ctx, e.sql(`UPDATE insights_daily SET spend = spend WHERE id = ?`), id); err != nil {
				return err
			}
		case op < 8: // removed by a complete window
			if _, err := tx.ExecContext(ctx, entry, "delete", now, id); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, e.sql(`DELETE FROM insights_daily WHERE id = ?`), id); err != nil {
				return err
			}
		default: // a new row, like id's
			nid := fmt.Sprintf("ins_new_%d", spendSeq.Add(1))
			if _, err := tx.ExecContext(ctx, e.sql(`INSERT INTO insights_daily (id, organization_id, account_id, campaign_id,
				platform_ad_account_id, currency, timezone, date, attribution_window, purchase_measurement,
				spend, ctr, cpc, cpm, impressions, reach, clicks, updated_at)
				SELECT ?, organization_id, account_id, campaign_id, platform_ad_account_id, currency, timezone, date,
				attribution_window, purchase_measurement, ?, ctr, cpc, cpm, impressions, reach, clicks, updated_at
				FROM insights_daily WHERE id = ?`), nid, fmt.Sprintf("%d.25", spendSeq.Add(1)), id); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, entry, "upsert", now, nid); err != nil {
				return err
			}
		}
		time.Sleep(time.Duration(rng.IntN(200)) * time.Microsecond) // let the imports interleave
	}
	return tx.Commit()
}

func queryIDs(ctx context.Context, tx *stdsql.Tx, q string, args ...any) ([]string, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// changesRuns is the number of runs of TestChangesFeedExact on dialect:
// SVC_E2E_CHANGES_RUNS, or 1000 on PostgreSQL and 200 on SQLite.
func changesRuns(dialect string) int {
	if n, err := strconv.Atoi(os.Getenv("SVC_E2E_CHANGES_RUNS")); err == nil && n > 0 {
		return n
	}
	if dialect == "postgres" {
		return 1000
	}
	return 200
}

// TestChangesFeedExact: runs of up to 4 concurrent imports with a sync
// while they commit and one after; after every run the client's copy equals
// the organization's rows (0 missed), no sync read a row twice or an
// unchanged row (0 duplicated), and the client read only changed rows.
func TestChangesFeedExact(t *testing.T) {
	for _, dialect := range []string{"postgres", "sqlite"} {
		t.Run(dialect, func(t *testing.T) {
			e := newChangesEnv(t, dialect)
			seed := time.Now().UnixNano()
			rng := rand.New(rand.NewPCG(uint64(seed), 42))
			t.Logf("seed %d", seed)
			c := &copyClient{}
			if err := e.sync(t, c, rng); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			runs, imports, held := changesRuns(dialect), 0, 0
			for run := range runs {
				k := rng.IntN(5)
				imports += k
				var wg sync.WaitGroup
				errs := make(chan error, k)
				for i := range k {
					r := rand.New(rand.NewPCG(uint64(seed), uint64(run*8+i)))
					wg.Go(func() {
						if err := e.randomImport(t, r, harness.OrgAlpha); err != nil {
							errs <- err
						}
					})
				}
				midErr := e.sync(t, c, rng) // while the imports commit
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Fatalf("run %d: import: %v", run, err)
				}
				if midErr != nil {
					t.Fatalf("run %d: sync during the imports: %v", run, midErr)
				}
				// The window of a sync ends below every transaction still open
				// in the cluster (xids are the cluster's: another database's
				// open transaction holds it back too): a change is never
				// skipped, but may wait for that transaction. So the sync is
				// repeated until the copy is the organization's rows, for at
				// most 30 s; no sync may read a change twice meanwhile.
				want := e.serverRows(t, harness.OrgAlpha)
				if e.dialect == "postgres" && !e.horizonPassed(t) {
					held++
					e.waitHorizon(t) // polled in the database, not through the API
				}
				for deadline := time.Now().Add(30 * time.Second); ; {
					if err := e.sync(t, c, rng); err != nil {
						t.Fatalf("run %d: sync: %v", run, err)
					}
					missed, extra := diffRows(c.rows, want)
					if missed+extra == 0 {
						break
					}
					if time.Now().After(deadline) {
						e.explain(t, c.rows, want)
						t.Fatalf("run %d: the copy differs from the organization's rows: %d missed or stale, %d not in the service", run, missed, extra)
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
			t.Logf("%s: %d runs, %d imports, %d syncs (%d requests; %d runs waited for another transaction that held the window) in %s: %d upserts and %d removals read (%d of rows never in the copy), 0 missed, 0 duplicated",
				dialect, runs, imports, c.stats.syncs, c.stats.requests, held, time.Since(start).Round(time.Millisecond),
				c.stats.upserts, c.stats.deletes, c.stats.phantoms)
		})
	}
}

// diffRows counts the ids of want that got lacks or holds with another value,
// and the ids of got that want lacks.
func diffRows(got, want map[string]string) (missed, extra int) {
	for id, v := range want {
		if got[id] != v {
			missed++
		}
	}
	for id := range got {
		if _, ok := want[id]; !ok {
			extra++
		}
	}
	return missed, extra
}

// checkErrorBody checks an answer against SPEC §7's error body: exactly
// statusCode (the status) and message (a non-empty string or list), and that
// it names no row.
func checkErrorBody(t *testing.T, what string, status, want int, body []byte) string {
	t.Helper()
	if status != want {
		t.Errorf("%s: status %d, want %d: %s", what, status, want, body)
		return ""
	}
	var b map[string]json.RawMessage
	if err := json.Unmarshal(body, &b); err != nil || len(b) != 2 || string(b["statusCode"]) != strconv.Itoa(want) {
		t.Errorf("%s: not the error body: %s", what, body)
	}
	if strings.Contains(string(body), "ins_") {
		t.Errorf("%s: the refusal names a row: %s", what, body)
	}
	return string(b["message"])
}

// TestChangesFeedRefusals: every 400, 401, 403, 410 and 429 of the
// endpoint carries the error body; another organization's token and cursor
// and a tampered token are 400 and reveal none of its rows.
func TestChangesFeedRefusals(t *testing.T) {
	e := newChangesEnv(t, "postgres")
	rng := rand.New(rand.NewPCG(1, 2))
	alpha, beta := &copyClient{}, &copyClient{}
	if err := e.sync(t, alpha, rng); err != nil {
		t.Fatal(err)
	}
	ek := e.keys["alpha"]
	e.keys["alpha"] = e.keys["beta"]
	if err := e.sync(t, beta, rng); err != nil {
		t.Fatal(err)
	}
	e.keys["alpha"] = ek
	// Every answer below, and a first and an incremental page, match
	// openapi.yaml.
	contract, err := harness.LoadContract(t.Context(), []string{e.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	e.contract = contract
	e.changeAll(t) // an import: upserts and a removal, then a page of them
	for _, q := range []url.Values{{"limit": {"2"}}, {"since": {alpha.token}}} {
		if status, _ := e.get(t, q, e.keys["alpha"]); status != 200 {
			t.Fatalf("%v: %d", q, status)
		}
	}
	_, body := e.get(t, url.Values{"limit": {"1"}}, e.keys["beta"])
	var p struct {
		Meta struct {
			NextCursor string `json:"nextCursor"`
		} `json:"meta"`
	}
	_ = json.Unmarshal(body, &p)
	tampered := []byte(alpha.token)
	tampered[3] = "AB"[rng.IntN(2)]
	if string(tampered) == alpha.token {
		tampered[3] = 'C'
	}
	for _, c := range []struct {
		what   string
		q      url.Values
		key    string
		status int
	}{
		{"another organization's token", url.Values{"since": {beta.token}}, e.keys["alpha"], 400},
		{"another organization's cursor", url.Values{"cursor": {p.Meta.NextCursor}}, e.keys["alpha"], 400},
		{"a tampered token", url.Values{"since": {string(tampered)}}, e.keys["alpha"], 400},
		{"accountId with since", url.Values{"since": {alpha.token}, "accountId": {"acc_x"}}, e.keys["alpha"], 400},
		{"an unknown field", url.Values{"offset": {"1"}}, e.keys["alpha"], 400},
		{"limit 1001", url.Values{"limit": {"1001"}}, e.keys["alpha"], 400},
		{"no key", url.Values{"since": {alpha.token}}, "", 401},
		{"no insights:read", url.Values{"since": {alpha.token}}, e.keys["alpha_a"], 403},
	} {
		status, body := e.get(t, c.q, c.key)
		checkErrorBody(t, c.what, status, c.status, body)
	}
	// Pruned past the token: 410.
	if _, err := e.db.ExecContext(t.Context(), `INSERT INTO insight_change_horizons (organization_id, pruned_below, pruned_at)
		VALUES ($1, pg_snapshot_xmax(pg_current_snapshot()), now())`, harness.OrgAlpha); err != nil {
		t.Fatal(err)
	}
	status, body := e.get(t, url.Values{"since": {alpha.token}}, e.keys["alpha"])
	if msg := checkErrorBody(t, "a pruned token", status, 410, body); !strings.Contains(msg, "start a first sync again") {
		t.Errorf("410 message %s", msg)
	}
	// 429: a second server with a per-key limit of 2.
	lim := newChangesEnv(t, "postgres", "SVC_LIMIT_KEY_PER_MINUTE=2")
	var last int
	for range 4 {
		last, body = lim.get(t, url.Values{}, lim.keys["alpha"])
	}
	checkErrorBody(t, "past the per-key limit", last, 429, body)
}

// explain logs the rows where a copy differs and their change entries.
func (e *changesEnv) explain(t *testing.T, got, want map[string]string) {
	for id := range want {
		if got[id] != want[id] {
			t.Logf("service %s = %q, copy %q", id, want[id], got[id])
		}
	}
	for id := range got {
		if _, ok := want[id]; !ok {
			t.Logf("copy %s = %q, not in the service", id, got[id])
		}
	}
	if e.dialect != "postgres" {
		return
	}
	rows, err := e.db.QueryContext(t.Context(), `SELECT insight_id, txid::text, seq, kind FROM insight_changes ORDER BY txid, seq`)
	if err != nil {
		t.Log(err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var id, txid, kind string
		var seq int64
		_ = rows.Scan(&id, &txid, &seq, &kind)
		if got[id] != want[id] {
			t.Logf("entry %s txid %s seq %d %s", id, txid, seq, kind)
		}
		if _, ok := want[id]; !ok && got[id] != "" {
			t.Logf("entry %s txid %s seq %d %s", id, txid, seq, kind)
		}
	}
}

// changeAll restates two rows of the organization alpha and removes one, as
// an import records it.
func (e *changesEnv) changeAll(t *testing.T) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 3; i++ {
		if err := e.randomImport(t, rng, harness.OrgAlpha); err != nil {
			t.Fatal(err)
		}
	}
}

// horizonPassed reports whether every change entry is below the database's
// snapshot xmin (PostgreSQL).
func (e *changesEnv) horizonPassed(t *testing.T) bool {
	var ok bool
	err := e.db.QueryRowContext(t.Context(), `SELECT COALESCE(max(txid) < pg_snapshot_xmin(pg_current_snapshot()), true) FROM insight_changes`).Scan(&ok)
	return err == nil && ok
}
