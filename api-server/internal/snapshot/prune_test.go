package snapshot_test

import (
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/snapshot"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
)

// TestPruneChangeLog: on PostgreSQL and SQLite, pruning deletes exactly
// the entries older than the retention, in batches, and moves the
// organization's horizon just above the newest entry it deleted (never
// back); newer entries stay; a second run deletes nothing.
func TestPruneChangeLog(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		ctx := t.Context()
		today := time.Now().UTC()
		testenv.Load(t, b.DB, today) // the fixture's entries: old, below
		var old, oldMax int64
		if err := b.DB.QueryRowContext(ctx, `SELECT count(*), max(seq) FROM insight_changes`).Scan(&old, &oldMax); err != nil || old < 20 {
			t.Fatalf("%d entries after the fixture's import (%v)", old, err)
		}
		if _, err := b.DB.ExecContext(ctx, `UPDATE insight_changes SET recorded_at = ?`, today.AddDate(0, 0, -40)); err != nil {
			t.Fatal(err)
		}
		doc := propDocument(map[string]modelRow{"ins_new": {account: "acc_p1", date: today.Format(time.DateOnly), spend: "1", measurement: "unavailable"}}, nil, false)
		if _, err := snapshot.Import(ctx, b.DB, doc, today); err != nil {
			t.Fatal(err)
		}
		n, err := snapshot.Prune(ctx, b.DB, snapshot.PruneOptions{Batch: 7})
		if err != nil || n != old {
			t.Fatalf("pruned %d (%v), want %d", n, err, old)
		}
		var left, leftOld int64
		if err := b.DB.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE seq <= ?) FROM insight_changes`, oldMax).Scan(&left, &leftOld); err != nil {
			t.Fatal(err)
		}
		if left != 1 || leftOld != 0 {
			t.Errorf("after pruning: %d entries (%d old), want the new one", left, leftOld)
		}
		horizon := func(org string) int64 {
			var h int64
			if err := b.DB.QueryRowContext(ctx, `SELECT CAST(CAST(pruned_below AS text) AS bigint) FROM insight_change_horizons WHERE organization_id = ?`, org).Scan(&h); err != nil {
				t.Fatalf("horizon of %s: %v", org, err)
			}
			return h
		}
		// The horizon is just above the newest deleted entry's watermark.
		var newest int64
		q := `SELECT max(seq) FROM insight_changes`
		if b.Name == "postgres" {
			q = `SELECT max(txid::text::bigint) FROM insight_changes`
		}
		if err := b.DB.QueryRowContext(ctx, q).Scan(&newest); err != nil {
			t.Fatal(err)
		}
		for _, org := range []string{"org_a", "org_b"} {
			if h := horizon(org); h < 2 || h > newest {
				t.Errorf("%s: horizon %d, want at most the kept entry's %d", org, h, newest)
			}
		}
		if n, err := snapshot.Prune(ctx, b.DB, snapshot.PruneOptions{}); err != nil || n != 0 {
			t.Errorf("a second prune: %d (%v)", n, err)
		}
		// Everything, 36 days on.
		if n, err := snapshot.Prune(ctx, b.DB, snapshot.PruneOptions{Now: today.AddDate(0, 0, 36)}); err != nil || n != 1 {
			t.Errorf("36 days on: %d (%v)", n, err)
		}
		if h := horizon("org_p"); h <= newest {
			t.Errorf("org_p: horizon %d, want above %d", h, newest)
		}
	})
}
