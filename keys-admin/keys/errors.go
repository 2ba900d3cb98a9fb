package keys

import (
	"errors"
	"fmt"
	"time"

	"github.com/adsnap/svc/keys-admin/apikey"
)

// Errors returned by the service. Each names one condition so that the HTTP
// handler and the command map it to a status or exit code; callers test them
// with errors.Is. Messages never contain a key value.
var (
	// ErrMalformedKey: a presented key fails the format or checksum.
	ErrMalformedKey = apikey.ErrMalformed
	// ErrInvalidScopes: no scope, or an unknown one.
	ErrInvalidScopes = errors.New("invalid scopes")
	// ErrInvalidExpiry: expiry outside 1 to 90 days.
	ErrInvalidExpiry = errors.New("invalid expiry")
	// ErrInvalidName: a name that is too long or has control characters.
	ErrInvalidName = errors.New("invalid key name")
	// ErrOrganizationNotFound: no such organization.
	ErrOrganizationNotFound = errors.New("organization not found")
	// ErrNotMember: the user is not a member of the organization.
	ErrNotMember = errors.New("user is not a member of the organization")
	// ErrMemberRemoved: the user's membership was removed.
	ErrMemberRemoved = errors.New("user's membership of the organization was removed")
	// ErrNotAdmin: the user is a member but neither owner nor admin.
	ErrNotAdmin = errors.New("only organization owners and admins manage developer keys")
	// ErrSubscriptionInactive: the subscription does not allow creating keys.
	ErrSubscriptionInactive = errors.New("the organization's subscription does not allow creating developer keys")
	// ErrKeyLimit: the organization already has the maximum of active keys.
	ErrKeyLimit = errors.New("the organization already has 10 active developer keys")
	// ErrKeyNotFound: no key with that id in the organization.
	ErrKeyNotFound = errors.New("developer key not found")
	// ErrAlreadyRevoked: the key was revoked before.
	ErrAlreadyRevoked = errors.New("developer key is already revoked")

	// ErrUnauthenticated: a presented key is missing, malformed, unknown,
	// revoked or expired. One error for all, so that a caller learns nothing
	// about which (SPEC §5: 401).
	ErrUnauthenticated = errors.New("missing, invalid, revoked or expired api key")
	// ErrIssuerNotAdmin: the key's issuer is no longer a current owner/admin (403).
	ErrIssuerNotAdmin = errors.New("the key's issuer is no longer an owner or admin of the organization")
	// ErrScopeMissing: the key lacks the scope for the endpoint (403).
	ErrScopeMissing = errors.New("the api key lacks the required scope")
)

// SubscriptionError is the refusal of a key creation by the organization's
// subscription: a trial that ended (or has no end) or a status that is
// neither trialing nor active. It wraps ErrSubscriptionInactive; get it with
// errors.As to tell a user which case applies.
type SubscriptionError struct {
	Status      string     // SubscriptionTrialing, SubscriptionCanceled, ...
	TrialEndsAt *time.Time // when a trial ended; nil if none was set
}

// TrialOver reports whether the refusal is an ended (or endless) trial.
func (e *SubscriptionError) TrialOver() bool { return e.Status == SubscriptionTrialing }

func (e *SubscriptionError) Error() string {
	switch {
	case e.Status != SubscriptionTrialing:
		return fmt.Sprintf("%s (status %s)", ErrSubscriptionInactive, e.Status)
	case e.TrialEndsAt == nil:
		return fmt.Sprintf("%s (status trialing with no trial end)", ErrSubscriptionInactive)
	}
	return fmt.Sprintf("%s (status trial ended %s)", ErrSubscriptionInactive, e.TrialEndsAt.UTC().Format(time.RFC3339))
}

// Unwrap returns ErrSubscriptionInactive.
func (e *SubscriptionError) Unwrap() error { return ErrSubscriptionInactive }
