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
// database and read the key's state in the same round trip as its data
// (Pending). Nothing else is remembered: whether the key is still valid and
// its issuer still an admin is read from the database on every request.
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
	now := a.clock()
	if r.RevokedAt != nil || !now.Before(r.ExpiresAt) {
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
	p := &Principal{
		KeyID: id.KeyID, OrganizationID: id.OrganizationID, Scopes: id.Scopes,
		ExpiresAt: r.ExpiresAt, LastUsedAt: r.LastUsedAt,
		IssuerRemoved: r.RemovedAt != nil,
	}
	if r.Role != nil {
		p.IssuerRole = *r.Role
	}
	if a.pool != nil {
		a.known.put(hash, *id)
	}
	a.w.mark(id.KeyID, r.LastUsedAt, now)
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
// unknown key. It is how a caller reads a Pending key's state inside a
// statement of its own (api-server's store: a CTE of each page statement,
// so that a request's key and its page are one statement); Pending.Arg is
// the parameter's value and Pending.Scan reads the columns.
const StateSQL = `SELECT ` + stateSelect + keyByHash + `$%d`

// StateColumns are the columns of StateSQL, in order.
var StateColumns = [...]string{"expires_at", "revoked_at", "last_used_at", "role", "removed_at"}

const (
	stateSelect = `k.expires_at, k.revoked_at, k.last_used_at, m.role, m.removed_at`
	keyByHash   = ` FROM developer_keys AS k LEFT JOIN organization_members AS m ` +
		`ON m.organization_id = k.organization_id AND m.user_id = k.issuer_user_id WHERE k.key_hash = `
)

// stateAlone is StateSQL with the hash as $1: Pending.Resolve's statement.
var stateAlone = fmt.Sprintf(StateSQL, 1)

// scanLookup reads lookupSQL's row; no row is sql.ErrNoRows.
func scanLookup(row pgx.Row, r *lookupRow) error {
	var revoked, lastUsed, removed pgtype.Timestamptz
	var role pgtype.Text
	if err := row.Scan(&r.ID, &r.OrganizationID, &r.Scopes, &r.ExpiresAt, &revoked, &lastUsed, &role, &removed); err != nil {
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
	id, ok := a.known.get(hash)
	if !ok {
		return nil, false
	}
	return &Pending{Identity: id, a: a, hash: hash}, true
}

// Pending is a lookup of a key whose Identity is known, to be read inside
// another statement: the sender puts StateSQL in its statement with Arg as
// the parameter, passes the state columns to Scan, then asks Principal.
// Principal gives what Lookup would have given at the time of the
// statement.
type Pending struct {
	Identity
	a       *Authenticator
	hash    []byte
	r       lookupRow
	err     error // Scan's error; sql.ErrNoRows: no such key
	scanned bool
	// Scan's destinations, here so that scanning allocates nothing of
	// its own.
	expires, revoked, lastUsed, removed pgtype.Timestamptz
	role                                pgtype.Text
}

// Arg is the value of StateSQL's parameter for this key.
func (p *Pending) Arg() any { return p.hash }

// Scan reads StateColumns from row: StateSQL's row, or the same columns of
// the caller's statement. No row (pgx.ErrNoRows), or a row of NULLs (a
// scalar subquery over StateSQL that found nothing), is a key that is no
// more: Principal then says ErrUnauthenticated. It returns the database's
// error only.
func (p *Pending) Scan(row pgx.Row) error {
	p.scanned = true
	err := row.Scan(&p.expires, &p.revoked, &p.lastUsed, &p.role, &p.removed)
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
	return nil
}

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
	}
	return p.a.principal(p.hash, &p.r, &p.Identity)
}

// Resolve runs the lookup alone (one round trip) and returns Principal's answer.
func (p *Pending) Resolve(ctx context.Context) (*Principal, error) {
	if err := p.Scan(p.a.pool.QueryRow(ctx, stateAlone, p.hash)); err != nil {
		return nil, fmt.Errorf("look up api key: %w", err)
	}
	return p.Principal()
}
