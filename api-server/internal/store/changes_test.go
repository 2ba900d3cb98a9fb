package store_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/uptrace/bun"
)

// syncResult is what one sync read: the rows upserted (id → spend), the rows
// removed, the number of changes and the window's end (the new token).
type syncResult struct {
	ups  map[string]string
	dels []string
	n    int
	hi   uint64
	gone bool
}

// readSync reads a whole sync through the store, limit changes a page, as
// the API pages it: a first sync when first, else from lo.
func readSync(t *testing.T, st *store.Store, org string, first bool, lo uint64, limit int, between func()) syncResult {
	t.Helper()
	res := syncResult{ups: map[string]string{}}
	p := store.ChangesParams{Limit: limit + 1, First: first, Lo: lo}
	for pages := 0; ; pages++ {
		m, page, err := st.ChangesPage(t.Context(), org, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if m.Gone {
			res.gone = true
			return res
		}
		if p.Hi != 0 && m.Hi != p.Hi {
			t.Fatalf("page %d: window end %d, the cursor's %d", pages, m.Hi, p.Hi)
		}
		p.Hi = m.Hi
		cs := page.Changes
		more := len(cs) > limit
		if more {
			cs = cs[:limit]
		}
		for _, c := range cs {
			id := strings.Clone(c.ID)
			if !c.Deleted {
				id = strings.Clone(c.Row.ID)
			}
			if _, dup := res.ups[id]; dup || slices.Contains(res.dels, id) {
				t.Fatalf("row %s read twice in one sync", id)
			}
			res.n++
			if c.Deleted {
				res.dels = append(res.dels, id)
			} else {
				res.ups[id] = strings.Clone(c.Row.Spend)
			}
		}
		if !more {
			res.hi = m.Hi
			return res
		}
		last := cs[len(cs)-1]
		p.AfterDate, p.AfterID = strings.Clone(last.Row.Date), strings.Clone(last.Row.ID)
		p.AfterTxID, p.AfterSeq = last.TxID, last.Seq
		if between != nil {
			between()
			between = nil
		}
	}
}

// importTx writes what an import writes for the feed, in its own
// transaction: rows set to spend (upsert entries) and rows removed (delete
// entries).
func importTx(t *testing.T, db bun.IDB, spend string, set []string, del []string) {
	t.Helper()
	ctx := t.Context()
	for _, id := range set {
		mustExec(t, db, `UPDATE insights_daily SET spend = ? WHERE id = ?`, spend, id)
		mustExec(t, db, `INSERT INTO insight_changes (organization_id, insight_id, account_id, date, kind, recorded_at)
			SELECT organization_id, id, account_id, date, 'upsert', ? FROM insights_daily WHERE id = ?`, time.Now().UTC(), id)
	}
	for _, id := range del {
		mustExec(t, db, `INSERT INTO insight_changes (organization_id, insight_id, account_id, date, kind, recorded_at)
			SELECT organization_id, id, account_id, date, 'delete', ? FROM insights_daily WHERE id = ?`, time.Now().UTC(), id)
		mustExec(t, db, `DELETE FROM insights_daily WHERE id = ?`, id)
	}
	_ = ctx
}

func mustExec(t *testing.T, db bun.IDB, q string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(t.Context(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func inTx(t *testing.T, db *bun.DB, f func(tx bun.Tx)) {
	t.Helper()
	tx, err := db.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	f(tx)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// orgRows is the organization's rows, id → spend, read directly.
func orgRows(t *testing.T, db *bun.DB, org string) map[string]string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), `SELECT id, spend FROM insights_daily WHERE organization_id = ?`, org)
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

// TestChangesFeed, on both databases: a first sync reads every row of the
// organization once (none of another's), paged; a sync with nothing new
// reads nothing; after an import it reads exactly the rows changed (their
// new values) and removed, each once however often it changed; a row
// changed while a first sync pages is left to the next sync, which reads it
// once; a token below the organization's pruning horizon is Gone.
func TestChangesFeed(t *testing.T) {
	for _, b := range []dbtest.Backend{dbtest.Postgres(t), dbtest.SQLite(t)} {
		t.Run(b.Name, func(t *testing.T) {
			ctx := t.Context()
			testenv.Seed(t, b.DB, time.Now().UTC())
			waitHorizon(t, b.DB) // the first sync's watermark above the seed's entries
			st, err := store.New(ctx, b.Handle)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			want := orgRows(t, b.DB, "org_a")
			// A row changed while the first sync pages (after its first page).
			first := readSync(t, st, "org_a", true, 0, 4, func() {
				inTx(t, b.DB, func(tx bun.Tx) { importTx(t, tx, "7.77", []string{"ins_a1_acct_0", "ins_a2_acct_4"}, nil) })
			})
			delete(want, "ins_a1_acct_0")
			delete(want, "ins_a2_acct_4")
			for _, id := range []string{"ins_a1_acct_0", "ins_a2_acct_4"} {
				if s, ok := first.ups[id]; ok && s == "7.77" {
					t.Errorf("first sync read %s's change made after its watermark", id)
				}
				delete(first.ups, id) // read before the change, or not at all
			}
			if !maps.Equal(first.ups, want) || len(first.dels) > 0 {
				t.Fatalf("first sync read %d rows, want %d: %v", len(first.ups), len(want), first.ups)
			}
			waitHorizon(t, b.DB)
			next := readSync(t, st, "org_a", false, first.hi, 3, nil)
			if want := map[string]string{"ins_a1_acct_0": "7.77", "ins_a2_acct_4": "7.77"}; !spendEqual(next.ups, want) || next.n != 2 {
				t.Fatalf("the sync after the first read %v (%d changes), want %v", next.ups, next.n, want)
			}
			if again := readSync(t, st, "org_a", false, next.hi, 3, nil); again.n != 0 {
				t.Fatalf("a sync with no import read %d changes", again.n)
			}
			// Three imports: a row changed twice, a row removed, another
			// organization's row changed.
			inTx(t, b.DB, func(tx bun.Tx) {
				importTx(t, tx, "1.01", []string{"ins_a1_cmp_1", "ins_a1_cmp_2", "ins_b1_acct_1"}, nil)
			})
			inTx(t, b.DB, func(tx bun.Tx) { importTx(t, tx, "2.02", []string{"ins_a1_cmp_1"}, []string{"ins_a2_acct_0"}) })
			waitHorizon(t, b.DB)
			got := readSync(t, st, "org_a", false, next.hi, 1, nil)
			if want := map[string]string{"ins_a1_cmp_1": "2.02", "ins_a1_cmp_2": "1.01"}; !spendEqual(got.ups, want) ||
				!slices.Equal(got.dels, []string{"ins_a2_acct_0"}) || got.n != 3 {
				t.Fatalf("sync read %v and removals %v (%d changes), want %v and [ins_a2_acct_0]", got.ups, got.dels, got.n, want)
			}
			// Pruned: a token below the horizon is gone; one at it is not.
			mustExec(t, b.DB, `INSERT INTO insight_change_horizons (organization_id, pruned_below, pruned_at) VALUES ('org_a', ?, ?)`,
				fmt.Sprint(got.hi+1), time.Now().UTC())
			if r := readSync(t, st, "org_a", false, next.hi, 10, nil); !r.gone {
				t.Error("a token below the pruning horizon is not gone")
			}
			if r := readSync(t, st, "org_b", false, next.hi, 10, nil); r.gone || r.n != 1 {
				t.Errorf("org_b: gone %v, %d changes; want its one change (the horizon is org_a's)", r.gone, r.n)
			}
		})
	}
}

// spendEqual compares spends as numbers (PostgreSQL's numeric text keeps the
// written scale; SQLite's text is as written).
func spendEqual(got, want map[string]string) bool {
	if len(got) != len(want) {
		return false
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || strings.TrimRight(g, "0") != strings.TrimRight(v, "0") {
			return false
		}
	}
	return true
}

// TestChangesFeedUncommitted, on PostgreSQL: an import that has not
// committed holds the window's end below it, so a sync neither sees its
// rows nor skips them: the sync after its commit reads them, once.
func TestChangesFeedUncommitted(t *testing.T) {
	b := dbtest.Postgres(t)
	ctx := t.Context()
	testenv.Seed(t, b.DB, time.Now().UTC())
	// The seed's entries below the first sync's watermark: a transaction
	// open meanwhile in another database of the server (e2e runs beside
	// this package in make test) would leave them to the sync after the
	// commit, which would then read the seed's rows too.
	waitHorizon(t, b.DB)
	st, err := store.New(ctx, b.Handle)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	start := readSync(t, st, "org_a", true, 0, 100, nil)
	slow, err := b.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Rollback() //nolint:errcheck
	importTx(t, slow, "3.03", []string{"ins_a1_acct_1"}, nil)
	// A later import commits first: its txid is above the slow one's.
	inTx(t, b.DB, func(tx bun.Tx) { importTx(t, tx, "4.04", []string{"ins_a1_acct_2"}, nil) })
	during := readSync(t, st, "org_a", false, start.hi, 10, nil)
	if during.n != 0 {
		t.Fatalf("a sync while an older import is open read %v: the window must end below the open import", during.ups)
	}
	if err := slow.Commit(); err != nil {
		t.Fatal(err)
	}
	waitHorizon(t, b.DB)
	after := readSync(t, st, "org_a", false, during.hi, 10, nil)
	if want := map[string]string{"ins_a1_acct_1": "3.03", "ins_a1_acct_2": "4.04"}; !spendEqual(after.ups, want) {
		t.Fatalf("after the commit: %v, want %v", after.ups, want)
	}
	_ = context.Background
}

// waitHorizon waits (at most 30 s) until every change entry is below the
// database's snapshot xmin, where a sync's window ends: the xids are the
// cluster's, and a transaction open in another database of the server (other
// packages' tests share it) holds the window back; nothing is lost meanwhile.
// SQLite has no such wait.
func waitHorizon(t *testing.T, db *bun.DB) {
	t.Helper()
	if db.Dialect().Name().String() != "pg" {
		return
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var ok bool
		if err := db.QueryRowContext(t.Context(), `SELECT COALESCE(max(txid) < pg_snapshot_xmin(pg_current_snapshot()), true) FROM insight_changes`).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		if ok {
			return
		}
	}
	t.Fatal("the change entries stayed above the snapshot horizon for 30 s")
}
