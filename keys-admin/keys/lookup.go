package keys

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/database"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/uptrace/bun"
)

// Principal is what a presented key resolves to: the key, its organization
// and scopes, and its issuer's current standing in that organization.
type Principal struct {
	KeyID          string
	OrganizationID string
	Scopes         apikey.Scopes
	ExpiresAt      time.Time
	LastUsedAt     *time.Time
	// IssuerRole is the issuer's current role, or "" if no membership row exists.
	IssuerRole    string
	IssuerRemoved bool
}

// Authorize reports whether the principal may use an endpoint that needs
// scope: the issuer must still be a current owner or admin (ErrIssuerNotAdmin)
// and the key must carry the scope (a *ScopeError naming scope, which
// matches ErrScopeMissing). Both are 403.
func (p *Principal) Authorize(scope apikey.Scope) error {
	if p.IssuerRemoved || (p.IssuerRole != RoleOwner && p.IssuerRole != RoleAdmin) {
		return ErrIssuerNotAdmin
	}
	if !p.Scopes.Has(scope) {
		return &ScopeError{Scope: scope}
	}
	return nil
}

// Authenticator resolves presented keys for the api-server, one request at
// a time, and records their use (last_used_at) off the request path. Its
// constructor starts nothing: Run writes the last-used times, for as long as
// its context lasts.
//
// On PostgreSQL it also remembers, per process, what never changes about a
// key it has resolved: its id, organization and scopes (Identity, see
// Known), so that a caller can take the key's rate limits before the
// database and check the key's state in the same round trip as its data
// (Pending). It remembers the key's state too, with the key-state epoch of
// its organization read in the same snapshot (EpochSQL); the state is
// used only by a statement that reads the same epoch, so whether the key is
// still valid and its issuer still an admin is decided by the database on
// every request.
type Authenticator struct {
	db    *bun.DB
	pool  *pgxpool.Pool // nil on SQLite: no Identity cache, lookups through bun
	now   func() time.Time
	known *identityCache
	w     *lastUsedWriter
}

// AuthenticatorOptions configure an Authenticator. Zero values choose the defaults.
type AuthenticatorOptions struct {
	// Now replaces time.Now, for tests.
	Now func() time.Time
	// LastUsedHook is called after each write of a key's last-used time,
	// with the write's error (nil when it succeeded); for metrics. It runs
	// on Run's goroutine and must not block.
	LastUsedHook func(error)
	// KnownKeys bounds the keys whose Identity is remembered (default 65,536).
	KnownKeys int
}

// NewAuthenticator returns an Authenticator on db. It starts nothing: call
// Run for last-used times to be written.
func NewAuthenticator(db *database.DB, opt AuthenticatorOptions) *Authenticator {
	a := &Authenticator{db: db.Bun, pool: db.Pool, now: opt.Now}
	if a.now == nil {
		a.now = time.Now
	}
	n := opt.KnownKeys
	if n <= 0 {
		n = 1 << 16
	}
	a.known = newIdentityCache(n)
	a.w = newLastUsedWriter(db.Bun, opt.LastUsedHook)
	return a
}

func (a *Authenticator) clock() time.Time { return a.now().UTC().Truncate(time.Microsecond) }

type lookupRow struct {
	ID             string     `bun:"id"`
	OrganizationID string     `bun:"organization_id"`
	Scopes         string     `bun:"scopes"`
	ExpiresAt      time.Time  `bun:"expires_at"`
	RevokedAt      *time.Time `bun:"revoked_at"`
	LastUsedAt     *time.Time `bun:"last_used_at"`
	Role           *string    `bun:"role"`
	RemovedAt      *time.Time `bun:"removed_at"`
	// Epoch is the organization's key-state epoch read with the rest
	// (PostgreSQL only; nil when it has none).
	Epoch *int64 `bun:"-"`
}

// Lookup resolves a presented key in one SQL round trip. A key that is
// missing, malformed (checked before any database work), unknown, revoked or
// expired gives ErrUnauthenticated and nothing else, so that the caller cannot
// tell which. Any other error is the database's. Nothing is answered from
// memory: a revocation, expiry or demotion counts from the next call on.
//
// A successful lookup queues the key's last-used time for Run, at most once
// a minute per key, and (on PostgreSQL) remembers its Identity for Known;
// an unauthenticated one forgets it.
func (a *Authenticator) Lookup(ctx context.Context, presented string) (*Principal, error) {
	if apikey.Validate(presented) != nil {
		return nil, ErrUnauthenticated
	}
	hash := apikey.Hash(presented)
	var (
		r   lookupRow
		err error
	)
	if a.pool != nil {
		err = scanLookup(a.pool.QueryRow(ctx, lookupSQL, hash), &r)
	} else {
		err = a.db.NewSelect().
			TableExpr("developer_keys AS k").
			Join("LEFT JOIN organization_members AS m ON m.organization_id = k.organization_id AND m.user_id = k.issuer_user_id").
			ColumnExpr("k.id, k.organization_id, k.scopes, k.expires_at, k.revoked_at, k.last_used_at, m.role, m.removed_at").
			Where("k.key_hash = ?", hash).
			Scan(ctx, &r)
	}
	if errors.Is(err, sql.ErrNoRows) {
		a.known.forget(hash)
		return nil, ErrUnauthenticated
	}
	if err != nil {
		return nil, fmt.Errorf("look up api key: %w", err)
	}
	return a.principal(hash, &r, nil)
}

// principal checks a found row and builds its Principal. id is the key's
// Identity when known (a Pending), nil to read it from r.
func (a *Authenticator) principal(hash []byte, r *lookupRow, id *Identity) (*Principal, error) {
	if r.RevokedAt != nil {
		a.known.forget(hash)
		return nil, ErrUnauthenticated
	}
	if id == nil {
		scopes, err := apikey.ParseScopes(r.Scopes)
		if err != nil {
			return nil, fmt.Errorf("stored scopes of key %s: %w", r.ID, err)
		}
		id = &Identity{KeyID: r.ID, OrganizationID: r.OrganizationID, Scopes: scopes}
	}
	k := knownKey{Identity: *id, state: keyState{expiresAt: r.ExpiresAt, removed: r.RemovedAt != nil}}
	if r.LastUsedAt != nil {
		k.state.lastUsedAt = *r.LastUsedAt
	}
	if r.Role != nil {
		k.state.role = *r.Role
	}
	if r.Epoch != nil {
		k.state.epoch, k.hasState = *r.Epoch, true
	}
	return a.admit(hash, k)
}

// admit is the Principal of a key that is not revoked, in state k.state
// (read now, or remembered with an epoch that has not moved): refused if
// it has expired, by this process's clock. It queues the key's last-used
// time (Run) and, on PostgreSQL, remembers k, with the last-used time as
// queued.
func (a *Authenticator) admit(hash []byte, k knownKey) (*Principal, error) {
	now := a.clock()
	if !now.Before(k.state.expiresAt) {
		a.known.forget(hash)
		return nil, ErrUnauthenticated
	}
	p := &Principal{
		KeyID: k.KeyID, OrganizationID: k.OrganizationID, Scopes: k.Scopes,
		ExpiresAt: k.state.expiresAt, IssuerRole: k.state.role, IssuerRemoved: k.state.removed,
	}
	if !k.state.lastUsedAt.IsZero() {
		lu := k.state.lastUsedAt
		p.LastUsedAt = &lu
	}
	k.state.lastUsedAt = a.w.mark(k.KeyID, k.state.lastUsedAt, now)
	if a.pool != nil {
		a.known.put(hash, k)
	}
	return p, nil
}

// lookupSQL is Lookup's query on PostgreSQL. It is sent with the hash as a
// parameter, so that pgx prepares it once per connection (its statement
// cache) and every lookup is one Bind/Execute; a query built with the hash
// interpolated (as bun does) is a new statement each time: a Parse round
// trip more and a plan per request.
const lookupSQL = `SELECT k.id, k.organization_id, k.scopes, ` + stateSelect + keyByHash + `$1`

// StateSQL selects the state of the key whose hash is parameter $%d (a
// fmt verb: the caller numbers it): StateColumns, in one row, none for an
// unknown key. Its last column is the key's organization's key-state
// epoch (EpochSQL), read in the same snapshot as the rest. It is how a
// caller reads a Pending key's state inside a statement of its own
// (api-server's store: a CTE of each page statement, so that a request's
// key and its page are one statement); Pending.Arg is the parameter's
// value and Pending.Scan reads the columns.
const StateSQL = `SELECT ` + stateSelect + keyByHash + `$%d`

// StateColumns are the columns of StateSQL, in order.
var StateColumns = [...]string{"expires_at", "revoked_at", "last_used_at", "role", "removed_at", "epoch"}

// EpochSQL selects the key-state epoch of the organization that is
// parameter $%d (a fmt verb): one row, NULL when the organization has
// none. It is what a caller reads, instead of StateSQL, for a Pending
// whose state is remembered (Pending.Cached); Pending.Scan reads it.
//
// The epoch (table key_state_epochs, see the migration
// 20261124000001_key_state_epochs) changes in the same transaction as
// anything that decides whether one of the organization's keys is
// accepted: a key's expiry, revocation or identity, its issuer's role,
// removal or membership row. So a remembered state read with epoch E is
// still the state of any statement that reads E, and one that reads
// another epoch (or none) reads the state again.
const EpochSQL = `SELECT epoch FROM key_state_epochs WHERE organization_id = $%d`

const (
	stateSelect = `k.expires_at, k.revoked_at, k.last_used_at, m.role, m.removed_at, ` +
		`(SELECT e.epoch FROM key_state_epochs AS e WHERE e.organization_id = k.organization_id) AS epoch`
	keyByHash = ` FROM developer_keys AS k LEFT JOIN organization_members AS m ` +
		`ON m.organization_id = k.organization_id AND m.user_id = k.issuer_user_id WHERE k.key_hash = `
)

// stateAlone is StateSQL with the hash as $1, epochAlone EpochSQL with
// the organization as $1: Pending.Resolve's statements.
var (
	stateAlone = fmt.Sprintf(StateSQL, 1)
	epochAlone = fmt.Sprintf(EpochSQL, 1)
)

// scanLookup reads lookupSQL's row; no row is sql.ErrNoRows.
func scanLookup(row pgx.Row, r *lookupRow) error {
	var revoked, lastUsed, removed pgtype.Timestamptz
	var role pgtype.Text
	var epoch pgtype.Int8
	if err := row.Scan(&r.ID, &r.OrganizationID, &r.Scopes, &r.ExpiresAt, &revoked, &lastUsed, &role, &removed, &epoch); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return sql.ErrNoRows
		}
		return err
	}
	r.RevokedAt, r.LastUsedAt, r.RemovedAt = timePtr(&revoked), timePtr(&lastUsed), timePtr(&removed)
	if role.Valid {
		r.Role = &role.String
	} else {
		r.Role = nil
	}
	r.Epoch = nil
	if epoch.Valid {
		r.Epoch = &epoch.Int64
	}
	return nil
}

func timePtr(t *pgtype.Timestamptz) *time.Time {
	if !t.Valid {
		return nil
	}
	return &t.Time
}

// Identity is what never changes about a key once issued: its id, its
// organization and its scopes. It says nothing about whether the key is
// still valid.
type Identity struct {
	KeyID          string
	OrganizationID string
	Scopes         apikey.Scopes
}

// Known returns, when this process has resolved the presented key before
// (Lookup, or a Pending that found it valid) and not seen it refused since,
// the key's Identity and a Pending lookup of it to send in the round trip
// of the request's data. It touches no database. A key that is malformed or
// not remembered gives false: resolve it with Lookup.
func (a *Authenticator) Known(presented string) (*Pending, bool) {
	if a.pool == nil || apikey.Validate(presented) != nil {
		return nil, false
	}
	hash := apikey.Hash(presented)
	k, ok := a.known.get(hash)
	if !ok {
		return nil, false
	}
	return &Pending{Identity: k.Identity, a: a, hash: hash, known: k, cached: k.hasState}, true
}

// Pending is a lookup of a key whose Identity is known, to be read inside
// another statement. When the key's state is remembered with its
// organization's key-state epoch (Cached), the statement reads the epoch
// alone (EpochSQL, the organization as its parameter); otherwise it reads
// the state (StateSQL, Arg as its parameter). The sender passes the
// columns to Scan, then asks Principal, or Resolve when Stale (the epoch
// has moved: the remembered state may be no more). Principal gives what
// Lookup would have given at the time of the statement.
type Pending struct {
	Identity
	a      *Authenticator
	hash   []byte
	known  knownKey // what Known found
	cached bool     // Scan reads the epoch alone

	r       lookupRow
	err     error // Scan's error; sql.ErrNoRows: no such key
	scanned bool
	stale   bool // cached, and the epoch read is not known's
	// Scan's destinations, here so that scanning allocates nothing of
	// its own.
	expires, revoked, lastUsed, removed pgtype.Timestamptz
	role                                pgtype.Text
	epoch                               pgtype.Int8
}

// Arg is the value of StateSQL's parameter for this key.
func (p *Pending) Arg() any { return p.hash }

// Cached reports whether the key's state is remembered: Scan then reads
// one column, the organization's epoch (EpochSQL), instead of
// StateColumns.
func (p *Pending) Cached() bool { return p.cached }

// Scan reads, when Cached, the epoch column (a row of EpochSQL, or the same
// column of the caller's statement; no row or NULL is an epoch unknown,
// so Stale); otherwise StateColumns: StateSQL's row, or the same columns
// of the caller's statement. No row (pgx.ErrNoRows), or a row of NULLs (a
// scalar subquery over StateSQL that found nothing), is a key that is no
// more: Principal then says ErrUnauthenticated. It returns the database's
// error only.
func (p *Pending) Scan(row pgx.Row) error {
	p.scanned = true
	if p.cached {
		err := row.Scan(&p.epoch)
		if errors.Is(err, pgx.ErrNoRows) {
			p.epoch, err = pgtype.Int8{}, nil
		}
		p.err = err
		p.stale = err == nil && (!p.epoch.Valid || p.epoch.Int64 != p.known.state.epoch)
		return err
	}
	err := row.Scan(&p.expires, &p.revoked, &p.lastUsed, &p.role, &p.removed, &p.epoch)
	switch {
	case errors.Is(err, pgx.ErrNoRows), err == nil && !p.expires.Valid: // expires_at is NOT NULL
		p.err = sql.ErrNoRows
		return nil
	case err != nil:
		p.err = err
		return err
	}
	p.err = nil
	p.r = lookupRow{ID: p.KeyID, OrganizationID: p.OrganizationID, ExpiresAt: p.expires.Time,
		RevokedAt: timePtr(&p.revoked), LastUsedAt: timePtr(&p.lastUsed), RemovedAt: timePtr(&p.removed)}
	if p.role.Valid {
		p.r.Role = &p.role.String
	}
	if p.epoch.Valid {
		p.r.Epoch = &p.epoch.Int64
	}
	return nil
}

// Stale reports whether Scan read an epoch other than the one the key's
// state was remembered with: the state may have changed, and Resolve
// reads it (Principal refuses to answer).
func (p *Pending) Stale() bool { return p.scanned && p.stale }

// errStale: Principal of a Stale Pending (the caller's mistake).
var errStale = errors.New("keys: Pending.Principal of a stale state: call Resolve")

// Principal is the lookup's answer, as Lookup gives it: ErrUnauthenticated
// (the key is forgotten) for a key that is unknown, revoked or expired.
func (p *Pending) Principal() (*Principal, error) {
	switch {
	case !p.scanned:
		return nil, errors.New("keys: Pending.Principal before Scan")
	case errors.Is(p.err, sql.ErrNoRows):
		p.a.known.forget(p.hash)
		return nil, ErrUnauthenticated
	case p.err != nil:
		return nil, fmt.Errorf("look up api key: %w", p.err)
	case p.stale:
		return nil, errStale
	case p.cached:
		return p.a.admit(p.hash, p.known)
	}
	return p.a.principal(p.hash, &p.r, &p.Identity)
}

// Resolve answers the lookup alone: when Cached and not yet scanned, it
// reads the organization's epoch (EpochSQL, one round trip) and answers
// from the remembered state if the epoch has not moved; otherwise (or
// when Stale) it reads the key's state (StateSQL, one round trip). It
// returns Principal's answer.
func (p *Pending) Resolve(ctx context.Context) (*Principal, error) {
	if p.cached && !p.scanned {
		if err := p.Scan(p.a.pool.QueryRow(ctx, epochAlone, p.OrganizationID)); err != nil {
			return nil, fmt.Errorf("look up api key: %w", err)
		}
		if !p.stale {
			return p.Principal()
		}
	}
	p.cached, p.stale = false, false
	if err := p.Scan(p.a.pool.QueryRow(ctx, stateAlone, p.hash)); err != nil {
		return nil, fmt.Errorf("look up api key: %w", err)
	}
	return p.Principal()
}
