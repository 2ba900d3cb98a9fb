package apikey

import (
	"fmt"
	"strings"
)

// Scope is one permission a key can carry.
type Scope string

// The scopes of SPEC §5, one per endpoint.
const (
	ScopeAccountsRead  Scope = "accounts:read"
	ScopeCampaignsRead Scope = "campaigns:read"
	ScopeInsightsRead  Scope = "insights:read"
)

// AllScopes lists every known scope in canonical order.
var AllScopes = []Scope{ScopeAccountsRead, ScopeCampaignsRead, ScopeInsightsRead}

// Scopes is a set of scopes.
type Scopes uint8

func (s Scope) bit() Scopes {
	for i, k := range AllScopes {
		if k == s {
			return 1 << i
		}
	}
	return 0
}

// ParseScope returns the scope named by s, or an error naming the known ones.
func ParseScope(s string) (Scope, error) {
	sc := Scope(strings.TrimSpace(s))
	if sc.bit() == 0 {
		return "", fmt.Errorf("unknown scope %q (known: %s)", s, AllScopes[0]+", "+AllScopes[1]+", "+AllScopes[2])
	}
	return sc, nil
}

// ParseScopes parses a comma-separated list of scopes. Duplicates are merged;
// an unknown or empty entry is an error.
func ParseScopes(list string) (Scopes, error) {
	var set Scopes
	for part := range strings.SplitSeq(list, ",") {
		sc, err := ParseScope(part)
		if err != nil {
			return 0, err
		}
		set |= sc.bit()
	}
	return set, nil
}

// NewScopes returns the set holding the given scopes; unknown ones are ignored.
func NewScopes(scopes ...Scope) Scopes {
	var set Scopes
	for _, s := range scopes {
		set |= s.bit()
	}
	return set
}

// Has reports whether the set holds s.
func (set Scopes) Has(s Scope) bool { b := s.bit(); return b != 0 && set&b == b }

// List returns the scopes of the set in canonical order.
func (set Scopes) List() []Scope {
	out := make([]Scope, 0, len(AllScopes))
	for _, s := range AllScopes {
		if set.Has(s) {
			out = append(out, s)
		}
	}
	return out
}

// String returns the set as a canonical comma-separated list, the stored form.
func (set Scopes) String() string {
	var b strings.Builder
	for _, s := range set.List() {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(string(s))
	}
	return b.String()
}
