package snapshot_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/snapshot"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/uptrace/bun"
)

// logEntry is an entry of insight_changes as a reader sees it.
type logEntry struct {
	txid, seq int64
	id        string
}

// TestConcurrentImportsChangeLog: on PostgreSQL, 4 importers (two per
// organization, so that some imports wait for each other and others run
// side by side) run imports of new and restated rows, some canceled at a
// random moment (rolled back, perhaps after writing their entries), while
// a reader follows the change log as the contract says: hi =
// pg_snapshot_xmin(pg_current_snapshot()), entries lo <= txid < hi, then lo
// = hi. At the end the reader has seen every committed entry exactly once,
// in (txid, seq) order, and nothing else; the counts and sums equal a
// recomputation.
func TestConcurrentImportsChangeLog(t *testing.T) {
	b := dbtest.Postgres(t)
	ctx := t.Context()
	if err := testenv.Migrate(ctx, b.DB); err != nil {
		t.Fatal(err)
	}
	stop := make(chan int64) // the last committed txid, once every import ended
	var seen []logEntry
	readerDone := make(chan error, 1)
	go func() { readerDone <- followLog(ctx, b.DB, stop, &seen) }()

	var wg sync.WaitGroup
	var mu sync.Mutex
	committed := 0
	for w := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			org := fmt.Sprintf("org_c%d", w%2)
			today := time.Now().UTC().Truncate(24 * time.Hour)
			for i := range 6 {
				doc := concurrentDoc(rng, org, w, today)
				ictx, cancel := context.WithCancel(ctx)
				if i%3 == 2 { // canceled somewhere between start and commit
					time.AfterFunc(time.Duration(rng.IntN(40))*time.Millisecond, cancel)
				}
				_, err := snapshot.Import(ictx, b.DB, doc, time.Now())
				cancel()
				if err == nil {
					mu.Lock()
					committed++
					mu.Unlock()
				} else if ictx.Err() == nil {
					t.Errorf("importer %d import %d: %v", w, i, err)
				}
			}
		})
	}
	wg.Wait()
	var last int64
	if err := b.DB.QueryRowContext(ctx, `SELECT coalesce(max(txid::text::bigint), 0) FROM insight_changes`).Scan(&last); err != nil {
		t.Fatal(err)
	}
	stop <- last
	if err := <-readerDone; err != nil {
		t.Fatal(err)
	}
	var all []logEntry
	rows, err := b.DB.QueryContext(ctx, `SELECT txid::text::bigint, seq, insight_id FROM insight_changes ORDER BY txid, seq`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var e logEntry
		if err := rows.Scan(&e.txid, &e.seq, &e.id); err != nil {
			t.Fatal(err)
		}
		all = append(all, e)
	}
	rows.Close()
	if committed < 8 || len(all) == 0 {
		t.Fatalf("%d imports committed, %d entries: too few to test", committed, len(all))
	}
	if len(seen) != len(all) {
		t.Errorf("the reader saw %d entries, %d committed", len(seen), len(all))
	}
	for i := range min(len(seen), len(all)) {
		if seen[i] != all[i] {
			t.Fatalf("entry %d: the reader saw %+v, the log holds %+v", i, seen[i], all[i])
		}
	}
	checkAggregates(t, b.DB, "after the concurrent imports")
}

// followLog reads the change log by its watermark, appending each
// window's entries to seen, until its watermark passed the txid that stop
// sends. The watermark is the cluster's oldest running transaction: a long
// transaction of another database on the same server holds it back, so the
// reader waits (30 s at most) rather than read a fixed number of times.
func followLog(ctx context.Context, db *bun.DB, stop chan int64, seen *[]logEntry) error {
	lo := "1"
	last, deadline := int64(-1), time.Now().Add(time.Hour)
	for {
		select {
		case last = <-stop:
			deadline = time.Now().Add(30 * time.Second)
		case <-time.After(3 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the watermark stayed at %s, the last entry is at %d", lo, last)
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		var hi string
		if err := tx.QueryRowContext(ctx, `SELECT pg_snapshot_xmin(pg_current_snapshot())::text`).Scan(&hi); err != nil {
			tx.Rollback()
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT txid::text::bigint, seq, insight_id FROM insight_changes
			WHERE txid >= ?::xid8 AND txid < ?::xid8 ORDER BY txid, seq`, lo, hi)
		if err != nil {
			tx.Rollback()
			return err
		}
		for rows.Next() {
			var e logEntry
			if err := rows.Scan(&e.txid, &e.seq, &e.id); err != nil {
				rows.Close()
				tx.Rollback()
				return err
			}
			*seen = append(*seen, e)
		}
		rows.Close()
		if err := tx.Commit(); err != nil {
			return err
		}
		lo = hi
		var h int64
		fmt.Sscan(hi, &h)
		if last >= 0 && h > last {
			return nil
		}
	}
}

// concurrentDoc is a document of one organization: its account, and 60
// rows of importer w, new or restated, over 10 days.
func concurrentDoc(rng *rand.Rand, org string, w int, today time.Time) *snapshot.Document {
	yes := true
	acc := "acc_" + org
	doc := &snapshot.Document{
		Organizations: []snapshot.Organization{{ID: org, Name: org, SubscriptionStatus: "active"}},
		Accounts: []snapshot.Account{{ID: acc, OrganizationID: org, PlatformAdAccountID: "p", AccountName: "a",
			Currency: "EUR", Timezone: "UTC", IsActive: &yes}},
	}
	for range 60 {
		id := fmt.Sprintf("ins_w%d_%d", w, rng.IntN(120))
		if len(doc.Insights) > 0 && doc.Insights[len(doc.Insights)-1].ID == id {
			continue
		}
		dup := false
		for _, in := range doc.Insights {
			dup = dup || in.ID == id
		}
		if dup {
			continue
		}
		doc.Insights = append(doc.Insights, snapshot.Insight{ID: id, AccountID: acc,
			Date: today.AddDate(0, 0, -rng.IntN(10)).Format(time.DateOnly), AttributionWindow: "w",
			PurchaseMeasurement: "unavailable", Spend: fmt.Sprintf("%d.%d", rng.IntN(50), rng.IntN(10)), CTR: "1", CPC: "1", CPM: "1",
			Impressions: ptr(int64(1)), Reach: ptr(int64(1)), Clicks: ptr(rng.Int64N(9))})
	}
	return doc
}
