package store

import (
	"errors"
	"math"
)

// ErrCountOverflow reports a sum of counts (impressions, clicks) that does
// not fit 64 bits. The import bounds every count (snapshot.MaxCount), so
// only rows written around it, by SQL, can get here; the summary then
// fails rather than answer a wrapped sum (security review 2: SQLite's
// summary showed −2 for two rows of 2^63−1). PostgreSQL's own sums are
// checked by the database: bigint arithmetic and the ::bigint casts of
// summary.sql fail with SQLSTATE 22003.
var ErrCountOverflow = errors.New("a sum of counts does not fit 64 bits: rows hold counts above the import's bound")

// addCount adds v to *sum, or returns ErrCountOverflow and leaves *sum as
// it was.
func addCount(sum *int64, v int64) error {
	if (v > 0 && *sum > math.MaxInt64-v) || (v < 0 && *sum < math.MinInt64-v) {
		return ErrCountOverflow
	}
	*sum += v
	return nil
}
