package store

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

// Prelude is the request's key, confirmed in the round trip of its page: a
// *keys.Pending (keys-admin/keys/pending.go, headed by the protocol's
// contract). The PostgreSQL reader sends the page's statement and the
// Prelude's own (Queue: keys-admin's read of the key's organization's
// key-state epoch) in one pgx batch, one round trip; reading the batch's
// results hands the Prelude its answer, and the caller then asks the
// Pending for the key's Principal. No SQL of keys-admin is written here.
//
// Only a PostgreSQL store takes a Prelude (SQLite: errPreludeSQLite). Its
// statement must see the primary: Routed, when it reads the page on a
// replica, runs the Prelude alone on the primary first (runPrelude).
type Prelude interface {
	// Queue adds the Prelude's statement to b; its result is read when
	// b's results are (pgx.BatchResults.Close).
	Queue(b *pgx.Batch)
}

// errPreludeSQLite: a Prelude needs PostgreSQL (the caller's mistake).
var errPreludeSQLite = errors.New("store: a Prelude is only sent to PostgreSQL")

// runPrelude runs pre alone on this store's database, one round trip
// (Routed: on the primary, before a page read on a replica).
func (s *Store) runPrelude(ctx context.Context, pre Prelude) error {
	if s.pool == nil {
		return errPreludeSQLite
	}
	b := &pgx.Batch{}
	pre.Queue(b)
	return s.pool.SendBatch(ctx, b).Close()
}
