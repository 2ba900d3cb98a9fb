package keys

import (
	"context"
	"crypto/rand"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/database"
	"github.com/uptrace/bun"
)

// Limits of SPEC §8.
const (
	MaxActiveKeys = 10
	MinExpiryDays = 1
	MaxExpiryDays = 90
	MaxNameLen    = 100
)

//go:embed migrations
var migrationFiles embed.FS

// Migrations is keys-admin's migration set: organizations,
// organization_members, developer_keys and developer_key_audit.
var Migrations = database.EmbeddedMigrations("keys_admin", migrationFiles, "migrations")

// Migrate applies keys-admin's migrations to db.
func Migrate(ctx context.Context, db *bun.DB) ([]string, error) {
	return database.Migrate(ctx, db, Migrations, time.Minute)
}

// Manager creates, lists and revokes developer keys and reads their audit
// trail. It holds no goroutine and nothing to close: it is the database
// handle, the dialect and a clock.
type Manager struct {
	db  *bun.DB
	pg  bool
	now func() time.Time
}

// ManagerOption configures a Manager.
type ManagerOption func(*Manager)

// WithManagerClock replaces time.Now, for tests.
func WithManagerClock(now func() time.Time) ManagerOption {
	return func(m *Manager) { m.now = now }
}

// NewManager returns a Manager on db. It starts nothing.
func NewManager(db *bun.DB, opts ...ManagerOption) *Manager {
	m := &Manager{db: db, pg: database.IsPostgres(db), now: time.Now}
	for _, o := range opts {
		o(m)
	}
	return m
}

func (m *Manager) clock() time.Time { return m.now().UTC().Truncate(time.Microsecond) }

// CreateRequest is the input of Create.
type CreateRequest struct {
	OrganizationID string
	UserID         string // the issuer: a current owner or admin
	Name           string
	Scopes         apikey.Scopes
	ExpiresInDays  int
}

// Validate checks the parts of the request that need no database.
func (r CreateRequest) Validate() error {
	if r.Scopes == 0 || r.Scopes.String() == "" {
		return fmt.Errorf("%w: choose at least one of %s, %s, %s", ErrInvalidScopes,
			apikey.ScopeAccountsRead, apikey.ScopeCampaignsRead, apikey.ScopeInsightsRead)
	}
	if apikey.NewScopes(r.Scopes.List()...) != r.Scopes {
		return fmt.Errorf("%w: unknown scope", ErrInvalidScopes)
	}
	if r.ExpiresInDays < MinExpiryDays || r.ExpiresInDays > MaxExpiryDays {
		return fmt.Errorf("%w: a key expires in %d to %d days, not %d", ErrInvalidExpiry, MinExpiryDays, MaxExpiryDays, r.ExpiresInDays)
	}
	if utf8.RuneCountInString(r.Name) > MaxNameLen || !utf8.ValidString(r.Name) {
		return fmt.Errorf("%w: at most %d characters of valid UTF-8", ErrInvalidName, MaxNameLen)
	}
	if strings.IndexFunc(r.Name, unicode.IsControl) >= 0 {
		return fmt.Errorf("%w: no control characters", ErrInvalidName)
	}
	return nil
}

// Create issues a new key. The issuer must be a current owner or admin, the
// subscription must allow it (a running trial, or paid), and the organization
// must have fewer than MaxActiveKeys active keys; concurrent calls can never
// exceed that (the organization row is locked in PostgreSQL, and SQLite
// transactions take the write lock at BEGIN). The returned value is the only
// copy of the key: only its SHA-256 is stored.
func (m *Manager) Create(ctx context.Context, req CreateRequest) (*CreatedKey, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	value, err := apikey.Generate()
	if err != nil {
		return nil, err
	}
	id, err := newKeyID()
	if err != nil {
		return nil, err
	}
	var row *keyRow
	err = m.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		now := m.clock()
		if err := m.checkCreate(ctx, tx, req.OrganizationID, req.UserID, now); err != nil {
			return err
		}
		row = &keyRow{
			ID: id, OrganizationID: req.OrganizationID, IssuerUserID: req.UserID,
			Name: req.Name, Scopes: req.Scopes.String(), KeyHash: apikey.Hash(value),
			Hint: apikey.Hint(value), CreatedAt: now,
			ExpiresAt: now.AddDate(0, 0, req.ExpiresInDays),
		}
		if _, err := tx.NewInsert().Model(row).Exec(ctx); err != nil {
			return fmt.Errorf("insert key: %w", err)
		}
		return m.audit(ctx, tx, req.OrganizationID, id, req.UserID, "create", now)
	})
	if err != nil {
		return nil, err
	}
	return &CreatedKey{KeyInfo: row.info(row.CreatedAt), Key: value}, nil
}

// CanCreate reports whether userID may create a key in the organization now,
// with the error Create would return for the same reason (ErrNotAdmin,
// ErrSubscriptionInactive, ErrKeyLimit, ...), or nil. It runs Create's own
// checks and writes nothing, so that a settings page can say why its create
// control is disabled before anyone submits it. Create checks again: the
// answer can change between the two calls.
func (m *Manager) CanCreate(ctx context.Context, organizationID, userID string) error {
	return m.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return m.checkCreate(ctx, tx, organizationID, userID, m.clock())
	})
}

// checkCreate applies the rules of Create that need the database: the
// issuer's role, the subscription and the active-key limit. In PostgreSQL it
// locks the organization's row until tx ends.
func (m *Manager) checkCreate(ctx context.Context, tx bun.Tx, orgID, userID string, now time.Time) error {
	org, err := m.lockOrganization(ctx, tx, orgID)
	if err != nil {
		return err
	}
	if err := m.requireAdmin(ctx, tx, orgID, userID); err != nil {
		return err
	}
	if !subscriptionAllowsCreate(org, now) {
		return &SubscriptionError{Status: org.SubscriptionStatus, TrialEndsAt: utcPtr(org.TrialEndsAt)}
	}
	active, err := tx.NewSelect().Model((*keyRow)(nil)).
		Where("organization_id = ?", orgID).
		Where("revoked_at IS NULL").
		Where("expires_at > ?", now).
		Count(ctx)
	if err != nil {
		return fmt.Errorf("count active keys: %w", err)
	}
	if active >= MaxActiveKeys {
		return fmt.Errorf("%w: revoke one before creating another", ErrKeyLimit)
	}
	return nil
}

// List returns the organization's keys, newest first, with their state. The
// caller must be a current owner or admin. No hash or value is returned.
func (m *Manager) List(ctx context.Context, organizationID, userID string) ([]KeyInfo, error) {
	if err := m.requireOrganization(ctx, m.db, organizationID); err != nil {
		return nil, err
	}
	if err := m.requireAdmin(ctx, m.db, organizationID, userID); err != nil {
		return nil, err
	}
	var rows []keyRow
	if err := m.db.NewSelect().Model(&rows).
		Where("organization_id = ?", organizationID).
		OrderExpr("created_at DESC, id").
		Scan(ctx); err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	now := m.clock()
	out := make([]KeyInfo, len(rows))
	for i := range rows {
		out[i] = rows[i].info(now)
	}
	return out, nil
}

// Revoke revokes a key of the organization. The caller must be a current
// owner or admin; the subscription is not consulted, so revocation works after
// a trial ended. A key of another organization is ErrKeyNotFound.
func (m *Manager) Revoke(ctx context.Context, organizationID, userID, keyID string) (*KeyInfo, error) {
	var row keyRow
	err := m.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		now := m.clock()
		if _, err := m.lockOrganization(ctx, tx, organizationID); err != nil {
			return err
		}
		if err := m.requireAdmin(ctx, tx, organizationID, userID); err != nil {
			return err
		}
		err := tx.NewSelect().Model(&row).
			Where("id = ?", keyID).
			Where("organization_id = ?", organizationID).
			Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: no key %q in organization %q", ErrKeyNotFound, keyID, organizationID)
		}
		if err != nil {
			return fmt.Errorf("load key: %w", err)
		}
		if row.RevokedAt != nil {
			return fmt.Errorf("%w (at %s)", ErrAlreadyRevoked, row.RevokedAt.UTC().Format(time.RFC3339))
		}
		row.RevokedAt, row.RevokedByUserID = &now, &userID
		if _, err := tx.NewUpdate().Model(&row).
			Column("revoked_at", "revoked_by_user_id").
			WherePK().
			Exec(ctx); err != nil {
			return fmt.Errorf("revoke key: %w", err)
		}
		return m.audit(ctx, tx, organizationID, keyID, userID, "revoke", now)
	})
	if err != nil {
		return nil, err
	}
	info := row.info(m.clock())
	return &info, nil
}

// Audit returns the organization's audit trail, oldest first.
func (m *Manager) Audit(ctx context.Context, organizationID string) ([]AuditEntry, error) {
	var rows []auditRow
	if err := m.db.NewSelect().Model(&rows).
		Where("organization_id = ?", organizationID).
		OrderExpr("at, id").
		Scan(ctx); err != nil {
		return nil, fmt.Errorf("read audit: %w", err)
	}
	out := make([]AuditEntry, len(rows))
	for i, r := range rows {
		out[i] = AuditEntry{KeyID: r.KeyID, ActorUserID: r.ActorUserID, Action: r.Action, At: r.At.UTC()}
	}
	return out, nil
}

func (m *Manager) audit(ctx context.Context, tx bun.Tx, orgID, keyID, actor, action string, at time.Time) error {
	_, err := tx.NewInsert().Model(&auditRow{
		OrganizationID: orgID, KeyID: keyID, ActorUserID: actor, Action: action, At: at,
	}).Exec(ctx)
	if err != nil {
		return fmt.Errorf("write audit row: %w", err)
	}
	return nil
}

// lockOrganization loads the organization and, in PostgreSQL, locks its row
// until the transaction ends, serializing key changes per organization.
func (m *Manager) lockOrganization(ctx context.Context, tx bun.Tx, id string) (*Organization, error) {
	var org Organization
	q := tx.NewSelect().Model(&org).Where("id = ?", id)
	if m.pg {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("%w: %q", ErrOrganizationNotFound, id)
		}
		return nil, fmt.Errorf("load organization: %w", err)
	}
	return &org, nil
}

func (*Manager) requireOrganization(ctx context.Context, db bun.IDB, id string) error {
	ok, err := db.NewSelect().Model((*Organization)(nil)).Where("id = ?", id).Exists(ctx)
	if err != nil {
		return fmt.Errorf("load organization: %w", err)
	}
	if !ok {
		return fmt.Errorf("%w: %q", ErrOrganizationNotFound, id)
	}
	return nil
}

// requireAdmin checks that userID is a current owner or admin of orgID.
func (*Manager) requireAdmin(ctx context.Context, db bun.IDB, orgID, userID string) error {
	var mem Member
	err := db.NewSelect().Model(&mem).
		Where("organization_id = ?", orgID).
		Where("user_id = ?", userID).
		Scan(ctx)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("%w: user %q, organization %q", ErrNotMember, userID, orgID)
	case err != nil:
		return fmt.Errorf("load membership: %w", err)
	case mem.RemovedAt != nil:
		return fmt.Errorf("%w: user %q, organization %q", ErrMemberRemoved, userID, orgID)
	case mem.Role != RoleOwner && mem.Role != RoleAdmin:
		return fmt.Errorf("%w: user %q is a %s", ErrNotAdmin, userID, mem.Role)
	}
	return nil
}

func subscriptionAllowsCreate(org *Organization, now time.Time) bool {
	switch org.SubscriptionStatus {
	case SubscriptionActive:
		return true
	case SubscriptionTrialing:
		return org.TrialEndsAt != nil && now.Before(*org.TrialEndsAt)
	}
	return false
}

// newKeyID returns "key_" and 20 random base62 characters.
func newKeyID() (string, error) {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	b := []byte("key_")
	var buf [32]byte
	for len(b) < 24 {
		if _, err := rand.Read(buf[:]); err != nil {
			return "", fmt.Errorf("generate key id: %w", err)
		}
		for _, c := range buf {
			if c < 248 && len(b) < 24 {
				b = append(b, alphabet[c%62])
			}
		}
	}
	return string(b), nil
}
