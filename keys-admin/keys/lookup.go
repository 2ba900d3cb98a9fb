package keys

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
)

// Principal is what a presented key resolves to: the key, its organization
// and scopes, and its issuer's current standing in that organization.
type Principal struct {
	KeyID          string
	OrganizationID string
	Scopes         apikey.Scopes
	ExpiresAt      time.Time
	RevokedAt      *time.Time
	LastUsedAt     *time.Time
	// IssuerRole is the issuer's current role, or "" if no membership row exists.
	IssuerRole    string
	IssuerRemoved bool
}

// Authorize reports whether the principal may use an endpoint that needs
// scope: the issuer must still be a current owner or admin (ErrIssuerNotAdmin)
// and the key must carry the scope (ErrScopeMissing). Both are 403.
func (p *Principal) Authorize(scope apikey.Scope) error {
	if p.IssuerRemoved || (p.IssuerRole != RoleOwner && p.IssuerRole != RoleAdmin) {
		return ErrIssuerNotAdmin
	}
	if !p.Scopes.Has(scope) {
		return fmt.Errorf("%w: %s", ErrScopeMissing, scope)
	}
	return nil
}

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
// tell which. Any other error is the database's. No cache is involved: a
// revocation, expiry or demotion counts from the next call on.
//
// A successful lookup records the key's use in the background, at most once a
// minute per key.
func (s *Service) Lookup(ctx context.Context, presented string) (*Principal, error) {
	if apikey.Validate(presented) != nil {
		return nil, ErrUnauthenticated
	}
	var (
		r   lookupRow
		err error
	)
	if s.pg {
		err = s.lookupPostgres(ctx, apikey.Hash(presented), &r)
	} else {
		err = s.db.NewSelect().
			TableExpr("developer_keys AS k").
			Join("LEFT JOIN organization_members AS m ON m.organization_id = k.organization_id AND m.user_id = k.issuer_user_id").
			ColumnExpr("k.id, k.organization_id, k.scopes, k.expires_at, k.revoked_at, k.last_used_at, m.role, m.removed_at").
			Where("k.key_hash = ?", apikey.Hash(presented)).
			Scan(ctx, &r)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrUnauthenticated
	}
	if err != nil {
		return nil, fmt.Errorf("look up api key: %w", err)
	}
	now := s.clock()
	if r.RevokedAt != nil || !now.Before(r.ExpiresAt) {
		return nil, ErrUnauthenticated
	}
	scopes, err := apikey.ParseScopes(r.Scopes)
	if err != nil {
		return nil, fmt.Errorf("stored scopes of key %s: %w", r.ID, err)
	}
	p := &Principal{
		KeyID: r.ID, OrganizationID: r.OrganizationID, Scopes: scopes,
		ExpiresAt: r.ExpiresAt, RevokedAt: r.RevokedAt, LastUsedAt: r.LastUsedAt,
		IssuerRemoved: r.RemovedAt != nil,
	}
	if r.Role != nil {
		p.IssuerRole = *r.Role
	}
	s.touch.mark(r.ID, r.LastUsedAt, now)
	return p, nil
}

// lookupSQL is Lookup's query on PostgreSQL. It is sent with the hash as a
// parameter, so that the driver prepares it once per connection (pgx's
// statement cache) and every lookup is one Bind/Execute round trip; a query
// built with the hash interpolated (as bun does) is a new statement each
// time: a Parse round trip more and a plan per request.
const lookupSQL = `SELECT k.id, k.organization_id, k.scopes, k.expires_at, k.revoked_at, k.last_used_at, m.role, m.removed_at
	FROM developer_keys AS k
	LEFT JOIN organization_members AS m ON m.organization_id = k.organization_id AND m.user_id = k.issuer_user_id
	WHERE k.key_hash = $1`

func (s *Service) lookupPostgres(ctx context.Context, hash []byte, r *lookupRow) error {
	conn, err := s.db.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	// Through pgx itself (the connection is pgx's database/sql driver):
	// database/sql's row machinery was a third of the lookup's allocations.
	return conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return errors.New("postgres connection is not a pgx connection")
		}
		var revoked, lastUsed, removed pgtype.Timestamptz
		var role pgtype.Text
		if err := c.Conn().QueryRow(ctx, lookupSQL, hash).Scan(&r.ID, &r.OrganizationID, &r.Scopes,
			&r.ExpiresAt, &revoked, &lastUsed, &role, &removed); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return sql.ErrNoRows
			}
			return err
		}
		r.RevokedAt, r.LastUsedAt, r.RemovedAt = timePtr(revoked), timePtr(lastUsed), timePtr(removed)
		if role.Valid {
			r.Role = &role.String
		}
		return nil
	})
}

func timePtr(t pgtype.Timestamptz) *time.Time {
	if !t.Valid {
		return nil
	}
	return &t.Time
}

// touchInterval is the least time between two last_used_at writes of a key.
const touchInterval = time.Minute

// toucher writes last_used_at off the request path: mark never blocks, and a
// key is queued at most once per touchInterval per process; the UPDATE's own
// condition keeps it to once per interval across replicas too.
type toucher struct {
	db   *bun.DB
	hook func(error) // WithLastUsedHook; nil if none
	ch   chan touchReq
	done chan struct{}

	mu     sync.Mutex
	closed bool
	last   map[string]time.Time
}

type touchReq struct {
	keyID string
	at    time.Time
}

func newToucher(db *bun.DB, hook func(error)) *toucher {
	t := &toucher{db: db, hook: hook, ch: make(chan touchReq, 256), done: make(chan struct{}), last: map[string]time.Time{}}
	go t.run()
	return t
}

func (t *toucher) mark(keyID string, lastUsed *time.Time, now time.Time) {
	if lastUsed != nil && now.Sub(*lastUsed) < touchInterval {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	if prev, ok := t.last[keyID]; ok && now.Sub(prev) < touchInterval {
		return
	}
	if len(t.last) > 10000 {
		for k, v := range t.last {
			if now.Sub(v) >= touchInterval {
				delete(t.last, k)
			}
		}
	}
	select {
	case t.ch <- touchReq{keyID, now}:
		t.last[keyID] = now
	default: // the writer is behind; a later request will mark it again
	}
}

func (t *toucher) run() {
	defer close(t.done)
	for req := range t.ch {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		// Errors are dropped on purpose: last_used_at is informational and
		// must never fail or slow a request.
		_, err := t.db.NewUpdate().Model((*keyRow)(nil)).
			Set("last_used_at = ?", req.at).
			Where("id = ?", req.keyID).
			Where("last_used_at IS NULL OR last_used_at <= ?", req.at.Add(-touchInterval)).
			Exec(ctx)
		cancel()
		if t.hook != nil {
			t.hook(err)
		}
	}
}

func (t *toucher) close() {
	t.mu.Lock()
	if !t.closed {
		t.closed = true
		close(t.ch)
	}
	t.mu.Unlock()
	<-t.done
}
