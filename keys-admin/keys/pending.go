package keys

// The per-request key protocol: how a caller (api-server) confirms, in the
// round trip of its own data, a key that this process has resolved before.
//
// Contract (PostgreSQL; on SQLite Known always says false):
//
//  1. Known(presented) touches no database. For a key this Authenticator
//     resolved before with its organization's key-state epoch, and has not
//     seen refused since, it gives a *Pending: the key's Identity (what
//     never changes: id, organization, scopes) and, inside, its state as of
//     that epoch. Otherwise it says false: resolve the key with Lookup.
//  2. In the statement that reads its data, on the primary, the caller
//     reads the epoch of Pending.OrganizationID as one column, with this
//     scalar subquery and no other SQL of keys-admin's:
//
//     (SELECT epoch FROM key_state_epochs WHERE organization_id = $n)
//
//     ($n the organization's id), and hands the value to SetEpoch (found
//     false for NULL: the organization has no epoch). Table
//     key_state_epochs (organization_id text PRIMARY KEY, epoch bigint NOT
//     NULL) is kept by keys-admin's migration
//     20261124000001_key_state_epochs; its name, its two columns and their
//     meaning are the contract: keys-admin changes them only with a new
//     major version.
//  3. Then the caller asks Stale. False: Principal answers from the
//     remembered state, which is the state as of the epoch read, so as of
//     the caller's statement. True (the epoch moved, or there is none, or
//     the state was read AuthenticatorOptions.Recheck or longer ago):
//     Resolve reads the key alone, one more round trip, and answers. A
//     caller whose request is refused before its data (no epoch read) calls
//     Resolve too: it reads the epoch alone, then the key only if the epoch
//     moved.
//
// Why it holds: the key-state epoch of an organization changes in the same
// transaction as every write that decides whether one of the
// organization's keys is accepted: a key's expiry, revocation, hash,
// scopes, organization or issuer; its issuer's membership row, role or
// removal; TRUNCATE of either table. Its values come from a sequence and
// never come back. So the state remembered with epoch E is the state of any
// snapshot that reads E, and revocation, expiry and demotion count from the
// next request on, on every replica of the caller. Expiry by time is this
// process's clock against the remembered expiry. The triggers are ENABLE
// ALWAYS (migration 20261129000001_key_state_epochs_always), so a write
// under session_replication_role = replica (a logical replication apply
// worker, a bulk fix) moves the epoch too. A write that bypasses the
// triggers altogether (a trigger disabled or dropped) is bounded by time:
// a remembered state is trusted for at most AuthenticatorOptions.Recheck
// (30 s by default) after it was read, then read again in full.
//
// Why SQL crosses modules here: read inside the caller's own statement, the
// epoch costs PostgreSQL one index probe; a statement of keys-admin's own,
// sent after the caller's in one pgx batch, measured about 5% slower at
// api-server's list endpoints, with 36 more allocations a request
// (api-server/README.md, Performance, note 13).
//
// Tests: this package's TestEpochMovesWithState, TestKnownNeverAnswersAlone
// and TestRememberedStateNeedsItsEpoch read the epoch as step 2 says;
// api-server's store tests (TestPrelude, TestRunPrelude, TestQueries) check
// that its statements do.

import (
	"context"
	"errors"
	"fmt"

	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// epochSQL is keys-admin's own read of an organization's key-state epoch
// (Resolve): one row, none when the organization has no epoch.
const epochSQL = `SELECT epoch FROM key_state_epochs WHERE organization_id = $1`

// Known returns, when this process has resolved the presented key before
// with its organization's key-state epoch (Lookup, or a Pending's Resolve)
// and not seen it refused since, the key's Identity and a Pending lookup
// of it to confirm in the round trip of the request's data. It touches no
// database. A key that is malformed or not remembered gives false: resolve
// it with Lookup.
func (a *Authenticator) Known(presented string) (*Pending, bool) {
	if a.pool == nil || apikey.Validate(presented) != nil {
		return nil, false
	}
	hash := apikey.Hash(presented)
	k, ok := a.known.get(hash)
	if !ok {
		return nil, false
	}
	// Past the recheck bound the state is read again whatever the epoch
	// says (Stale), so that a write that bypassed the triggers counts too.
	overdue := a.clock().Sub(k.readAt) >= a.recheck
	return &Pending{Identity: k.Identity, a: a, hash: hash, known: k, overdue: overdue}, true
}

// Pending is the lookup of a Known key, confirmed by its organization's
// key-state epoch read in the caller's round trip (the contract above).
// A Pending serves one request and one goroutine.
type Pending struct {
	Identity
	a     *Authenticator
	hash  []byte
	known knownKey // the state remembered, with its epoch

	read    bool // the epoch has been read
	stale   bool // the epoch read is not known.epoch, or overdue
	overdue bool // known was read Recheck or longer ago: read it again
}

// SetEpoch gives the Pending its organization's key-state epoch as the
// caller's statement read it (step 2 of the contract); found is false when
// the column is NULL.
func (p *Pending) SetEpoch(epoch int64, found bool) {
	p.read = true
	p.stale = p.overdue || !found || epoch != p.known.epoch
}

// Stale reports whether the epoch read is not the one the key's state was
// remembered with (or there was none), or the state was read
// AuthenticatorOptions.Recheck or longer ago: the state may have changed,
// and Resolve reads it; Principal refuses to answer.
func (p *Pending) Stale() bool { return p.read && p.stale }

// errStale: Principal of a Stale Pending (the caller's mistake).
var errStale = errors.New("keys: Pending.Principal of a stale state: call Resolve")

// Principal is the lookup's answer as Lookup would give it at the time the
// epoch was read: ErrUnauthenticated (the key is forgotten) for a key that
// has expired since, by this process's clock. Before the epoch is read, or
// when Stale, it answers an error of the caller's: call Resolve.
func (p *Pending) Principal() (*Principal, error) {
	switch {
	case !p.read:
		return nil, errors.New("keys: Pending.Principal before its epoch was read")
	case p.stale:
		return nil, errStale
	}
	return p.a.admit(p.hash, p.known, true)
}

// Resolve answers the lookup alone. When the epoch has not been read, it
// reads it (one round trip) and answers from the remembered state if the
// epoch has not moved; otherwise, or when Stale or overdue, it reads the
// key as Lookup does (one round trip) and answers that, remembering the
// key again when it is still valid.
func (p *Pending) Resolve(ctx context.Context) (*Principal, error) {
	if !p.read && !p.overdue {
		var e pgtype.Int8
		err := p.a.pool.QueryRow(ctx, epochSQL, p.OrganizationID).Scan(&e)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("look up api key: %w", err)
		}
		if p.SetEpoch(e.Int64, e.Valid); !p.stale {
			return p.Principal()
		}
	}
	return p.a.lookupHash(ctx, p.hash)
}
