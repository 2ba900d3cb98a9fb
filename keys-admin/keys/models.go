package keys

import (
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// Subscription statuses of an organization.
const (
	SubscriptionTrialing = "trialing"
	SubscriptionActive   = "active"
	SubscriptionCanceled = "canceled"
)

// Member roles.
const (
	RoleOwner  = "owner"
	RoleAdmin  = "admin"
	RoleMember = "member"
)

// Organization is a row of organizations: the host platform's table, carried
// here so that a fresh database is usable.
type Organization struct {
	bun.BaseModel `bun:"table:organizations"`

	ID                 string     `bun:"id,pk"`
	Name               string     `bun:"name,notnull"`
	SubscriptionStatus string     `bun:"subscription_status,notnull"`
	TrialEndsAt        *time.Time `bun:"trial_ends_at"`
	CreatedAt          time.Time  `bun:"created_at,notnull"`
	UpdatedAt          time.Time  `bun:"updated_at,notnull"`
}

// Member is a row of organization_members.
type Member struct {
	bun.BaseModel `bun:"table:organization_members"`

	OrganizationID string     `bun:"organization_id,pk"`
	UserID         string     `bun:"user_id,pk"`
	Role           string     `bun:"role,notnull"`
	RemovedAt      *time.Time `bun:"removed_at"`
	CreatedAt      time.Time  `bun:"created_at,notnull"`
	UpdatedAt      time.Time  `bun:"updated_at,notnull"`
}

// keyRow is the storage model of developer_keys. It never leaves the package:
// callers see KeyInfo, which has no hash.
type keyRow struct {
	bun.BaseModel `bun:"table:developer_keys"`

	ID              string     `bun:"id,pk"`
	OrganizationID  string     `bun:"organization_id,notnull"`
	IssuerUserID    string     `bun:"issuer_user_id,notnull"`
	Name            string     `bun:"name,notnull"`
	Scopes          string     `bun:"scopes,notnull"`
	KeyHash         []byte     `bun:"key_hash,notnull"`
	Hint            string     `bun:"hint,notnull"`
	CreatedAt       time.Time  `bun:"created_at,notnull"`
	ExpiresAt       time.Time  `bun:"expires_at,notnull"`
	RevokedAt       *time.Time `bun:"revoked_at"`
	RevokedByUserID *string    `bun:"revoked_by_user_id"`
	LastUsedAt      *time.Time `bun:"last_used_at"`
	ReplacedByKeyID *string    `bun:"replaced_by_key_id"` // the successor of a rolled key (roll.go)
}

// auditRow is a row of developer_key_audit: who did what to which key, when.
type auditRow struct {
	bun.BaseModel `bun:"table:developer_key_audit"`

	ID             int64     `bun:"id,pk,autoincrement"`
	OrganizationID string    `bun:"organization_id,notnull"`
	KeyID          string    `bun:"key_id,notnull"`
	ActorUserID    string    `bun:"actor_user_id,notnull"`
	Action         string    `bun:"action,notnull"`
	At             time.Time `bun:"at,notnull"`
}

// Key states as List reports them.
const (
	StateActive  = "active"
	StateRevoked = "revoked"
	StateExpired = "expired"
)

// KeyInfo describes a key without its value or hash: what List shows.
type KeyInfo struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Scopes     []string   `json:"scopes"`
	Hint       string     `json:"hint"`
	IssuerID   string     `json:"issuerUserId"`
	CreatedAt  time.Time  `json:"createdAt"`
	ExpiresAt  time.Time  `json:"expiresAt"`
	RevokedAt  *time.Time `json:"revokedAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
	State      string     `json:"state"`
	// ReplacedBy is the id of the key that replaced this one in a roll
	// (Manager.Roll), which then expires at ExpiresAt; "" if never rolled.
	ReplacedBy string `json:"replacedBy,omitempty"`
}

// CreatedKey is what Create returns: the key's description and its value,
// which exists nowhere else and must be shown to the issuer once.
type CreatedKey struct {
	KeyInfo
	Key string `json:"key"`
}

// AuditEntry is one recorded create, revoke or roll.
type AuditEntry struct {
	KeyID       string    `json:"keyId"`
	ActorUserID string    `json:"actorUserId"`
	Action      string    `json:"action"`
	At          time.Time `json:"at"`
}

func (r *keyRow) info(now time.Time) KeyInfo {
	state := StateActive
	switch {
	case r.RevokedAt != nil:
		state = StateRevoked
	case !now.Before(r.ExpiresAt):
		state = StateExpired
	}
	scopes := strings.Split(r.Scopes, ",")
	var replacedBy string
	if r.ReplacedByKeyID != nil {
		replacedBy = *r.ReplacedByKeyID
	}
	return KeyInfo{
		ID: r.ID, Name: r.Name, Scopes: scopes, Hint: r.Hint, IssuerID: r.IssuerUserID,
		CreatedAt: r.CreatedAt.UTC(), ExpiresAt: r.ExpiresAt.UTC(),
		RevokedAt: utcPtr(r.RevokedAt), LastUsedAt: utcPtr(r.LastUsedAt), State: state,
		ReplacedBy: replacedBy,
	}
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
