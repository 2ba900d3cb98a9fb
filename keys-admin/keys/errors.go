package keys

import (
	"errors"
	"fmt"
	"time"

	"github.com/adsnap/svc/keys-admin/apikey"
)

// The kinds of refusal. Every error of the package below matches exactly one
// of them with errors.Is, so that a caller maps a kind (an HTTP status, an
// exit code) without listing every error:
//
//	errors.Is(err, keys.ErrInvalid)   // bad input; nothing was done
//	errors.Is(err, keys.ErrRefused)   // the user, the key or the plan may not do it
//	errors.Is(err, keys.ErrNotFound)  // no such organization or key
//	errors.Is(err, keys.ErrConflict)  // a limit or the key's state forbids it
//
// An error that matches none of them (and is not ErrUnauthenticated) is a
// failure of the database or a bug.
var (
	ErrInvalid  = errors.New("invalid request")
	ErrRefused  = errors.New("refused")
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("conflict")
)

// kindError is an error of the package: its own message, and Is true for its
// kind as well as for itself.
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string { return e.msg }

// Is reports whether target is the error's kind.
func (e *kindError) Is(target error) bool { return target == e.kind }

func newError(kind error, msg string) error { return &kindError{msg: msg, kind: kind} }

// Errors returned by Manager and by the request side (Lookup, Authorize).
// Each names one condition; callers test them with errors.Is, or test their
// kind (above). Messages never contain a key value.
var (
	// ErrMalformedKey: a presented key fails the format or checksum. It is
	// apikey.ErrMalformed (no kind: Lookup answers it as ErrUnauthenticated).
	ErrMalformedKey = apikey.ErrMalformed
	// ErrInvalidScopes: no scope, or an unknown one (ErrInvalid).
	ErrInvalidScopes = newError(ErrInvalid, "invalid scopes")
	// ErrInvalidExpiry: expiry outside 1 to 90 days (ErrInvalid).
	ErrInvalidExpiry = newError(ErrInvalid, "invalid expiry")
	// ErrInvalidName: a name that is too long or has control characters (ErrInvalid).
	ErrInvalidName = newError(ErrInvalid, "invalid key name")
	// ErrOrganizationNotFound: no such organization (ErrNotFound).
	ErrOrganizationNotFound = newError(ErrNotFound, "organization not found")
	// ErrNotMember: the user is not a member of the organization (ErrRefused).
	ErrNotMember = newError(ErrRefused, "user is not a member of the organization")
	// ErrMemberRemoved: the user's membership was removed (ErrRefused).
	ErrMemberRemoved = newError(ErrRefused, "user's membership of the organization was removed")
	// ErrNotAdmin: the user is a member but neither owner nor admin (ErrRefused).
	ErrNotAdmin = newError(ErrRefused, "only organization owners and admins manage developer keys")
	// ErrSubscriptionInactive: the subscription does not allow creating keys (ErrRefused).
	ErrSubscriptionInactive = newError(ErrRefused, "the organization's subscription does not allow creating developer keys")
	// ErrKeyLimit: the organization already has the maximum of active keys (ErrConflict).
	ErrKeyLimit = newError(ErrConflict, "the organization already has 10 active developer keys")
	// ErrKeyNotFound: no key with that id in the organization (ErrNotFound).
	ErrKeyNotFound = newError(ErrNotFound, "developer key not found")
	// ErrAlreadyRevoked: the key was revoked before (ErrConflict).
	ErrAlreadyRevoked = newError(ErrConflict, "developer key is already revoked")

	// ErrUnauthenticated: a presented key is missing, malformed, unknown,
	// revoked or expired. One error for all, so that a caller learns nothing
	// about which (SPEC §5: 401). It has no kind.
	ErrUnauthenticated = errors.New("missing, invalid, revoked or expired api key")
	// ErrIssuerNotAdmin: the key's issuer is no longer a current owner/admin
	// (403, ErrRefused).
	ErrIssuerNotAdmin = newError(ErrRefused, "the key's issuer is no longer an owner or admin of the organization")
	// ErrScopeMissing: the key lacks the scope for the endpoint (403,
	// ErrRefused). Authorize returns it as a *ScopeError, which names the scope.
	ErrScopeMissing = newError(ErrRefused, "the api key lacks the required scope")
)

// ScopeError is Authorize's refusal of a key that lacks the scope an
// endpoint needs: Scope is the scope that was checked. It matches
// ErrScopeMissing (and ErrRefused) with errors.Is; get it with errors.As to
// tell the caller which scope to add.
type ScopeError struct {
	Scope apikey.Scope
}

func (e *ScopeError) Error() string { return fmt.Sprintf("%s: %s", ErrScopeMissing, e.Scope) }

// Unwrap returns ErrScopeMissing.
func (e *ScopeError) Unwrap() error { return ErrScopeMissing }

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
