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
// Lookup resolves a key from the database. On PostgreSQL the Authenticator
// also remembers, per process, a key it resolved with the key-state epoch
// of its organization (pending.go): Known then gives a Pending whose state
// the caller confirms by reading that epoch in the round trip of its own
// data, so that whether the key is still valid and its issuer still an
// admin is decided by the database on every request.
type Authenticator struct {
	db    *bun.DB
	pool  *pgxpool.Pool // nil on SQLite: nothing remembered, lookups through bun
	now   func() time.Time
	known *identityCache
	w     *lastUsedWriter
	// recheck bounds how long a remembered state is trusted (Recheck);
	// negative: never.
	recheck time.Duration
}

// AuthenticatorOptions configure an Authenticator. Zero values choose the defaults.
type AuthenticatorOptions struct {
	// Now replaces time.Now, for tests.
	Now func() time.Time
	// LastUsedHook is called after each write of a key's last-used time,
	// with the write's error (nil when it succeeded); for metrics. It runs
	// on Run's goroutine and must not block.
	LastUsedHook func(error)
	// KnownKeys bounds the keys remembered for Known (default 65,536).
	KnownKeys int
	// Recheck bounds how long a remembered key's state is trusted without
	// reading it again in full (default DefaultRecheck; negative: the
	// state is read on every request). The key-state epoch makes every
	// write that goes through the triggers count from the next request;
	// Recheck bounds the rest (a trigger disabled or dropped): such a
	// write counts at most Recheck after it commits.
	Recheck time.Duration
}

// DefaultRecheck is AuthenticatorOptions.Recheck's default.
const DefaultRecheck = 30 * time.Second

// NewAuthenticator returns an Authenticator on db. It starts nothing: call
// Run for last-used times to be written.
func NewAuthenticator(db *database.DB, opt AuthenticatorOptions) *Authenticator {
	a := &Authenticator{db: db.Bun, pool: db.Pool, now: opt.Now, recheck: opt.Recheck}
	if a.now == nil {
		a.now = time.Now
	}
	if a.recheck == 0 {
		a.recheck = DefaultRecheck
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
	// readAt is the clock before the row was read (knownKey.readAt).
	readAt time.Time `bun:"-"`
}

// Lookup resolves a presented key in one SQL round trip. A key that is
// missing, malformed (checked before any database work), unknown, revoked or
// expired gives ErrUnauthenticated and nothing else, so that the caller cannot
// tell which. Any other error is the database's. Nothing is answered from
// memory: a revocation, expiry or demotion counts from the next call on.
//
// A successful lookup queues the key's last-used time for Run, at most once
// a minute per key, and (on PostgreSQL) remembers the key for Known; an
// unauthenticated one forgets it.
func (a *Authenticator) Lookup(ctx context.Context, presented string) (*Principal, error) {
	if apikey.Validate(presented) != nil {
		return nil, ErrUnauthenticated
	}
	return a.lookupHash(ctx, apikey.Hash(presented))
}

// lookupHash is Lookup of a key by its hash (Lookup, Pending.Resolve).
func (a *Authenticator) lookupHash(ctx context.Context, hash []byte) (*Principal, error) {
	var (
		r   lookupRow
		err error
	)
	r.readAt = a.clock() // before the read: the bound counts from here
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
	return a.principal(hash, &r)
}

// principal checks a found row and builds its Principal.
func (a *Authenticator) principal(hash []byte, r *lookupRow) (*Principal, error) {
	if r.RevokedAt != nil {
		a.known.forget(hash)
		return nil, ErrUnauthenticated
	}
	scopes, err := apikey.ParseScopes(r.Scopes)
	if err != nil {
		return nil, fmt.Errorf("stored scopes of key %s: %w", r.ID, err)
	}
	k := knownKey{Identity: Identity{KeyID: r.ID, OrganizationID: r.OrganizationID, Scopes: scopes},
		expiresAt: r.ExpiresAt, removed: r.RemovedAt != nil, readAt: r.readAt}
	if r.LastUsedAt != nil {
		k.lastUsedAt = *r.LastUsedAt
	}
	if r.Role != nil {
		k.role = *r.Role
	}
	if r.Epoch != nil {
		k.epoch = *r.Epoch
	}
	return a.admit(hash, k, r.Epoch != nil)
}

// admit is the Principal of a key that is not revoked, in state k (read
// now, or remembered with an epoch that has not moved): refused if it has
// expired, by this process's clock. It queues the key's last-used time
// (Run) and, when remember (PostgreSQL, the state read with its epoch),
// remembers k for Known, with the last-used time as queued; otherwise it
// forgets the key.
func (a *Authenticator) admit(hash []byte, k knownKey, remember bool) (*Principal, error) {
	now := a.clock()
	if !now.Before(k.expiresAt) {
		a.known.forget(hash)
		return nil, ErrUnauthenticated
	}
	p := &Principal{
		KeyID: k.KeyID, OrganizationID: k.OrganizationID, Scopes: k.Scopes,
		ExpiresAt: k.expiresAt, IssuerRole: k.role, IssuerRemoved: k.removed,
	}
	if !k.lastUsedAt.IsZero() {
		lu := k.lastUsedAt
		p.LastUsedAt = &lu
	}
	k.lastUsedAt = a.w.mark(k.KeyID, k.lastUsedAt, now)
	switch {
	case a.pool == nil: // SQLite: nothing is remembered
	case remember && a.recheck > 0:
		a.known.put(hash, k)
	default:
		a.known.forget(hash)
	}
	return p, nil
}

// lookupSQL is Lookup's query on PostgreSQL: the key by hash, its issuer's
// membership and its organization's key-state epoch (pending.go), read in
// one snapshot. It is sent with the hash as a parameter, so that pgx
// prepares it once per connection (its statement cache) and every lookup
// is one Bind/Execute; a query built with the hash interpolated (as bun
// does) is a new statement each time: a Parse round trip more and a plan
// per request.
const lookupSQL = `SELECT k.id, k.organization_id, k.scopes, k.expires_at, k.revoked_at, k.last_used_at,
       m.role, m.removed_at,
       (SELECT e.epoch FROM key_state_epochs AS e WHERE e.organization_id = k.organization_id) AS epoch
FROM developer_keys AS k
LEFT JOIN organization_members AS m ON m.organization_id = k.organization_id AND m.user_id = k.issuer_user_id
WHERE k.key_hash = $1`

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
	r.Role, r.Epoch = nil, nil
	if role.Valid {
		r.Role = &role.String
	}
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
