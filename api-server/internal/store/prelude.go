package store

import (
	"context"
	"errors"
)

// Prelude is the request's key, confirmed in the round trip of its page: a
// *keys.Pending, whose protocol keys-admin/keys/pending.go states, headed
// by its contract. Every PostgreSQL page statement (and meta statement)
// reads the organization's key-state epoch in its leading column key_epoch,
// as that contract documents: one scalar subquery of key_state_epochs,
// keys-admin's table, the only SQL of keys-admin's written here. The reader
// hands the column to SetEpoch, and the caller then asks the Pending for
// the key's Principal (or Resolve, when the epoch has moved). So a request
// whose key this process knows makes one statement and one round trip to
// the database. Without a Prelude the column is read and ignored.
//
// Only a PostgreSQL store takes a Prelude (SQLite: errPreludeSQLite). The
// epoch must be read on the primary: Routed, when it reads the page on a
// replica, reads the meta statement on the primary first (runPrelude).
// TestPrelude and TestRunPrelude are this side's tests of the contract.
type Prelude interface {
	// SetEpoch takes the key_epoch column of the page's first row (or of
	// the meta statement's): found is false when it is NULL.
	SetEpoch(epoch int64, found bool)
}

// errPreludeSQLite: a Prelude needs PostgreSQL (the caller's mistake).
var errPreludeSQLite = errors.New("store: a Prelude is only sent to PostgreSQL")

// runPrelude reads the organization's meta statement (meta.sql) on this
// store's database, one round trip, and hands its key_epoch to pre
// (Routed: on the primary, before a page read on a replica).
func (s *Store) runPrelude(ctx context.Context, orgID string, pre Prelude) error {
	if s.pool == nil {
		return errPreludeSQLite
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	_, err = pgMeta(ctx, conn, orgID, "", pre)
	return err
}
