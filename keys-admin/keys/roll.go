package keys

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/uptrace/bun"
)

// Rolling a key (DESIGN §6, as Stripe's "roll key"): one action creates a
// new key with the old key's name and scopes and a chosen expiry, shown once,
// and makes the old key expire after a grace period, so that a script moves
// to the new key without an outage.
//
// How a roll counts against MaxActiveKeys: both keys are active, and count,
// for as long as both are accepted. A roll with a grace period therefore
// needs a free place, like a create; a roll with no grace (the old key
// expires at once) replaces one active key by another and is allowed at the
// limit. So the organization never has more than MaxActiveKeys keys that
// the API accepts.
//
// The old key's expires_at moves to now+grace (never later than it was);
// on PostgreSQL that write moves the organization's key-state epoch (the
// migration's trigger watches expires_at), so every api-server replica
// reads the new expiry on the key's next request, and a remembered key's
// expiry is checked against the clock on every request (Authenticator.admit):
// the old key is refused from the end of its grace on.

// MaxRollGrace is the longest grace period of a roll: the old key stays
// valid at most this long after it.
const MaxRollGrace = 7 * 24 * time.Hour

// Errors of Roll, besides those of Create and Revoke.
var (
	// ErrInvalidGrace: a grace period outside 0 to MaxRollGrace (ErrInvalid).
	ErrInvalidGrace = newError(ErrInvalid, "invalid grace period: 0 to 7 days")
	// ErrKeyExpired: the key has expired and cannot be rolled (ErrConflict).
	ErrKeyExpired = newError(ErrConflict, "developer key has expired")
	// ErrAlreadyRolled: the key was rolled before; roll its successor
	// (ErrConflict).
	ErrAlreadyRolled = newError(ErrConflict, "developer key was already rolled")
)

// RollOptions choose the new key's expiry and the old key's grace period.
type RollOptions struct {
	// ExpiresInDays is the new key's lifetime, MinExpiryDays to MaxExpiryDays.
	ExpiresInDays int
	// Grace is how long the old key stays valid, 0 (it expires at once) to
	// MaxRollGrace. It never makes the old key live longer than it would have.
	Grace time.Duration
}

// Validate checks the options without the database.
func (o RollOptions) Validate() error {
	if o.ExpiresInDays < MinExpiryDays || o.ExpiresInDays > MaxExpiryDays {
		return fmt.Errorf("%w: a key expires in %d to %d days, not %d", ErrInvalidExpiry, MinExpiryDays, MaxExpiryDays, o.ExpiresInDays)
	}
	if o.Grace < 0 || o.Grace > MaxRollGrace {
		return fmt.Errorf("%w, not %s", ErrInvalidGrace, o.Grace)
	}
	return nil
}

// RolledKey is what Roll returns: the new key, with its value (show it
// once), and the old key as it is after the roll.
type RolledKey struct {
	New CreatedKey `json:"new"`
	Old KeyInfo    `json:"old"`
}

// Roll replaces the organization's key keyID by a new key with the same
// name and scopes, expiring in opt.ExpiresInDays days, and makes the old key
// expire opt.Grace from now. The rules are Create's (a current owner or
// admin, a subscription that allows creating keys, the active-key limit as
// counted above) and Revoke's (a key of another organization is
// ErrKeyNotFound); a revoked, expired or already rolled key is refused
// (ErrAlreadyRevoked, ErrKeyExpired, ErrAlreadyRolled). The roll is audited:
// "roll" for the old key and "create" for the new one, by userID, at the
// same time. Only the new key's SHA-256 is stored.
func (m *Manager) Roll(ctx context.Context, organizationID, userID, keyID string, opt RollOptions) (*RolledKey, error) {
	if err := opt.Validate(); err != nil {
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
	var old, row keyRow
	var now time.Time
	err = m.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		now = m.clock()
		if err := m.checkRoll(ctx, tx, organizationID, userID, keyID, opt, now, &old); err != nil {
			return err
		}
		row = keyRow{
			ID: id, OrganizationID: organizationID, IssuerUserID: userID,
			Name: old.Name, Scopes: old.Scopes, KeyHash: apikey.Hash(value),
			Hint: apikey.Hint(value), CreatedAt: now, ExpiresAt: now.AddDate(0, 0, opt.ExpiresInDays),
		}
		if _, err := tx.NewInsert().Model(&row).Exec(ctx); err != nil {
			return fmt.Errorf("insert key: %w", err)
		}
		if end := now.Add(opt.Grace); end.Before(old.ExpiresAt) {
			old.ExpiresAt = end
		}
		old.ReplacedByKeyID = &id
		if _, err := tx.NewUpdate().Model(&old).
			Column("expires_at", "replaced_by_key_id").
			WherePK().
			Where("organization_id = ?", organizationID).
			Exec(ctx); err != nil {
			return fmt.Errorf("shorten the rolled key: %w", err)
		}
		if err := m.audit(ctx, tx, organizationID, keyID, userID, "roll", now); err != nil {
			return err
		}
		return m.audit(ctx, tx, organizationID, id, userID, "create", now)
	})
	if err != nil {
		return nil, err
	}
	return &RolledKey{New: CreatedKey{KeyInfo: row.info(now), Key: value}, Old: old.info(now)}, nil
}

// checkRoll applies Roll's rules that need the database, in that order: the
// organization (locked in PostgreSQL until tx ends), the issuer's role, the
// key and its state, the subscription, the active-key limit. It loads the
// key into old.
func (m *Manager) checkRoll(ctx context.Context, tx bun.Tx, orgID, userID, keyID string, opt RollOptions, now time.Time, old *keyRow) error {
	org, err := m.lockOrganization(ctx, tx, orgID)
	if err != nil {
		return err
	}
	if err := m.requireAdmin(ctx, tx, orgID, userID); err != nil {
		return err
	}
	err = tx.NewSelect().Model(old).Where("id = ?", keyID).Where("organization_id = ?", orgID).Scan(ctx)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("%w: no key %q in organization %q", ErrKeyNotFound, keyID, orgID)
	case err != nil:
		return fmt.Errorf("load key: %w", err)
	case old.RevokedAt != nil:
		return fmt.Errorf("%w (at %s)", ErrAlreadyRevoked, old.RevokedAt.UTC().Format(time.RFC3339))
	case old.ReplacedByKeyID != nil:
		return fmt.Errorf("%w: its successor is %s", ErrAlreadyRolled, *old.ReplacedByKeyID)
	case !now.Before(old.ExpiresAt):
		return fmt.Errorf("%w (at %s)", ErrKeyExpired, old.ExpiresAt.UTC().Format(time.RFC3339))
	}
	if !subscriptionAllowsCreate(org, now) {
		return &SubscriptionError{Status: org.SubscriptionStatus, TrialEndsAt: utcPtr(org.TrialEndsAt)}
	}
	if opt.Grace == 0 {
		return nil // the old key leaves as the new one comes: the count stays
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
		return fmt.Errorf("%w: both keys count during the grace period; roll with no grace, or revoke a key first", ErrKeyLimit)
	}
	return nil
}
