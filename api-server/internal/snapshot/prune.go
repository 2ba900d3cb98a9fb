package snapshot

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	bundialect "github.com/uptrace/bun/dialect"
)

// DefaultRetention is how long the change log keeps an entry (CONTRACT-45).
const DefaultRetention = 35 * 24 * time.Hour

// The statements of the pruning (queries/).
var (
	qPruneHorizon = query("prune_horizon")
	qPrune        = query("prune")
)

// PruneOptions tune Prune.
type PruneOptions struct {
	// Retention: entries recorded longer ago are deleted (0: DefaultRetention).
	Retention time.Duration
	// Batch is the most entries one short transaction deletes (0: 1,000).
	Batch int
	// MaxBatches bounds the work of one call (0: until none is left).
	MaxBatches int
	// Now is the time the retention counts back from (zero: time.Now()).
	Now time.Time
}

// Prune deletes the change-log entries older than the retention, a batch
// at a time, each batch its own short transaction, and moves each
// organization's horizon (insight_change_horizons.pruned_below) above the
// entries deleted, so that the changes feed answers a token older than the
// horizon with 410. It never waits for an import (PostgreSQL skips the
// entries another transaction holds) and readers take no lock. It returns
// the number of entries deleted.
func Prune(ctx context.Context, db *bun.DB, opts PruneOptions) (int64, error) {
	if opts.Retention <= 0 {
		opts.Retention = DefaultRetention
	}
	if opts.Batch <= 0 {
		opts.Batch = 1000
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	cutoff := opts.Now.UTC().Add(-opts.Retention)
	pg := db.Dialect().Name() == bundialect.PG
	var total int64
	for i := 0; opts.MaxBatches == 0 || i < opts.MaxBatches; i++ {
		n, err := pruneBatch(ctx, db, pg, cutoff, opts.Batch)
		if err != nil {
			return total, fmt.Errorf("prune the change log: %w", err)
		}
		total += n
		if n < int64(opts.Batch) {
			break
		}
	}
	return total, nil
}

// pruneBatch deletes one batch and returns its size.
func pruneBatch(ctx context.Context, db *bun.DB, pg bool, cutoff time.Time, batch int) (int64, error) {
	if pg {
		var n int64
		err := db.QueryRowContext(ctx, qPrune.pg, cutoff, batch).Scan(&n)
		return n, err
	}
	var n int64
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, qPruneHorizon.sqlite, cutoff, batch, time.Now().UTC()); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, qPrune.sqlite, cutoff, batch)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}
