package keys_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
)

// TestRoll: a roll creates a key with the old one's name and scopes and the
// chosen expiry, shortens the old key to the grace period (never lengthens
// it), marks it rolled, audits both, and the old key stops being accepted
// when the grace ends.
func TestRoll(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, migrate, func(t *testing.T, b dbtest.Backend) {
		m, clk := setup(t, b)
		ctx := t.Context()
		r := req("org_a", "u_owner")
		r.Name = "nightly"
		r.Scopes = apikey.NewScopes(apikey.ScopeAccountsRead, apikey.ScopeInsightsRead)
		old, err := m.Create(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		auth := keys.NewAuthenticator(b.Handle, keys.AuthenticatorOptions{Now: clk.Now})
		if _, err := auth.Lookup(ctx, old.Key); err != nil { // remembered on PostgreSQL
			t.Fatal(err)
		}
		clk.Advance(time.Hour)
		rolled, err := m.Roll(ctx, "org_a", "u_admin", old.ID, keys.RollOptions{ExpiresInDays: 60, Grace: 48 * time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		now := t0.Add(time.Hour)
		n, o := rolled.New, rolled.Old
		if apikey.Validate(n.Key) != nil || n.ID == old.ID || n.Name != "nightly" || strings.Join(n.Scopes, ",") != "accounts:read,insights:read" ||
			!n.ExpiresAt.Equal(now.AddDate(0, 0, 60)) || n.IssuerID != "u_admin" || n.State != keys.StateActive || n.ReplacedBy != "" {
			t.Fatalf("new key: %+v", n.KeyInfo)
		}
		if o.ID != old.ID || !o.ExpiresAt.Equal(now.Add(48*time.Hour)) || o.State != keys.StateActive || o.ReplacedBy != n.ID {
			t.Fatalf("old key: %+v", o)
		}
		list, err := m.List(ctx, "org_a", "u_owner")
		if err != nil || len(list) != 2 || list[1].ReplacedBy != n.ID || !list[1].ExpiresAt.Equal(o.ExpiresAt) {
			t.Fatalf("list: %+v %v", list, err)
		}
		audit, err := m.Audit(ctx, "org_a")
		if err != nil || len(audit) != 3 || audit[1] != (keys.AuditEntry{KeyID: old.ID, ActorUserID: "u_admin", Action: "roll", At: now}) ||
			audit[2] != (keys.AuditEntry{KeyID: n.ID, ActorUserID: "u_admin", Action: "create", At: now}) {
			t.Fatalf("audit: %+v %v", audit, err)
		}
		// Both keys work during the grace; the old one is accepted until it
		// ends, from memory (the epoch moved: its new expiry is read) or not.
		for _, k := range []string{old.Key, n.Key} {
			if p, err := lookupOrKnown(t, auth, k); err != nil {
				t.Fatalf("during the grace: %v", err)
			} else if k == old.Key && !p.ExpiresAt.Equal(o.ExpiresAt) {
				t.Fatalf("the old key's expiry as the API sees it: %s, want %s", p.ExpiresAt, o.ExpiresAt)
			}
		}
		if _, err := m.Roll(ctx, "org_a", "u_admin", old.ID, keys.RollOptions{ExpiresInDays: 30}); !errors.Is(err, keys.ErrAlreadyRolled) {
			t.Fatalf("second roll: %v, want ErrAlreadyRolled", err)
		}
		clk.Advance(48 * time.Hour)
		if _, err := lookupOrKnown(t, auth, old.Key); !errors.Is(err, keys.ErrUnauthenticated) {
			t.Fatalf("after the grace: %v, want ErrUnauthenticated", err)
		}
		if _, err := m.Roll(ctx, "org_a", "u_admin", old.ID, keys.RollOptions{ExpiresInDays: 30}); !errors.Is(err, keys.ErrAlreadyRolled) && !errors.Is(err, keys.ErrKeyExpired) {
			t.Fatalf("roll after the grace: %v", err)
		}

		// A grace longer than the key's life leaves its expiry as it was;
		// no grace expires it at once.
		short := req("org_a", "u_owner")
		short.ExpiresInDays = 1
		k1, err := m.Create(ctx, short)
		if err != nil {
			t.Fatal(err)
		}
		r1, err := m.Roll(ctx, "org_a", "u_owner", k1.ID, keys.RollOptions{ExpiresInDays: 7, Grace: keys.MaxRollGrace})
		if err != nil || !r1.Old.ExpiresAt.Equal(k1.ExpiresAt) {
			t.Fatalf("grace past the expiry: %+v %v", r1, err)
		}
		r0, err := m.Roll(ctx, "org_a", "u_owner", r1.New.ID, keys.RollOptions{ExpiresInDays: 7})
		if err != nil || r0.Old.State != keys.StateExpired {
			t.Fatalf("no grace: %+v %v", r0, err)
		}
		if _, err := auth.Lookup(ctx, r1.New.Key); !errors.Is(err, keys.ErrUnauthenticated) {
			t.Fatalf("rolled with no grace: %v", err)
		}
	})
}

// lookupOrKnown is the api-server's path: the remembered state confirmed
// by the epoch (PostgreSQL) when the key is known, else a Lookup.
func lookupOrKnown(t *testing.T, auth *keys.Authenticator, key string) (*keys.Principal, error) {
	t.Helper()
	if pd, ok := auth.Known(key); ok {
		return pd.Resolve(t.Context())
	}
	return auth.Lookup(t.Context(), key)
}

// TestRollRefusals: Create's and Revoke's rules, and the key's state; a
// refused roll writes nothing.
func TestRollRefusals(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, migrate, func(t *testing.T, b dbtest.Backend) {
		m, clk := setup(t, b)
		ctx := t.Context()
		a, err := m.Create(ctx, req("org_a", "u_owner"))
		if err != nil {
			t.Fatal(err)
		}
		revoked, _ := m.Create(ctx, req("org_a", "u_owner"))
		if _, err := m.Revoke(ctx, "org_a", "u_owner", revoked.ID); err != nil {
			t.Fatal(err)
		}
		short := req("org_a", "u_owner")
		short.ExpiresInDays = 1
		expiring, _ := m.Create(ctx, short)
		trial, err := m.Create(ctx, req("org_trial", "u_t"))
		if err != nil {
			t.Fatal(err)
		}
		opt := keys.RollOptions{ExpiresInDays: 30, Grace: time.Hour}
		keysBefore, auditBefore := count(t, b.DB, "developer_keys"), count(t, b.DB, "developer_key_audit")
		for _, c := range []struct {
			org, user, key string
			opt            keys.RollOptions
			want           error
		}{
			{"org_a", "u_member", a.ID, opt, keys.ErrNotAdmin},
			{"org_a", "u_gone", a.ID, opt, keys.ErrMemberRemoved},
			{"org_b", "u_b", a.ID, opt, keys.ErrKeyNotFound},
			{"org_a", "u_owner", "key_nope", opt, keys.ErrKeyNotFound},
			{"org_a", "u_owner", revoked.ID, opt, keys.ErrAlreadyRevoked},
			{"org_a", "u_owner", a.ID, keys.RollOptions{ExpiresInDays: 91}, keys.ErrInvalidExpiry},
			{"org_a", "u_owner", a.ID, keys.RollOptions{ExpiresInDays: 30, Grace: keys.MaxRollGrace + time.Second}, keys.ErrInvalidGrace},
			{"org_a", "u_owner", a.ID, keys.RollOptions{ExpiresInDays: 30, Grace: -time.Second}, keys.ErrInvalidGrace},
		} {
			if _, err := m.Roll(ctx, c.org, c.user, c.key, c.opt); !errors.Is(err, c.want) {
				t.Errorf("roll %s by %s/%s: %v, want %v", c.key, c.org, c.user, err, c.want)
			}
		}
		// The trial ended: a roll creates a key, so it is refused (revoking works).
		clk.Advance(8 * 24 * time.Hour)
		var sub *keys.SubscriptionError
		if _, err := m.Roll(ctx, "org_trial", "u_t", trial.ID, opt); !errors.As(err, &sub) || !sub.TrialOver() {
			t.Errorf("trial over: %v", err)
		}
		if _, err := m.Roll(ctx, "org_a", "u_owner", expiring.ID, opt); !errors.Is(err, keys.ErrKeyExpired) {
			t.Errorf("expired key: %v, want ErrKeyExpired", err)
		}
		if k, a := count(t, b.DB, "developer_keys"), count(t, b.DB, "developer_key_audit"); k != keysBefore || a != auditBefore {
			t.Errorf("refused rolls wrote: keys %d→%d, audit %d→%d", keysBefore, k, auditBefore, a)
		}
	})
}

// TestRollAtTheKeyLimit: during a grace both keys count, so a roll with a
// grace needs a free place; a roll with no grace is allowed at the limit.
func TestRollAtTheKeyLimit(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, migrate, func(t *testing.T, b dbtest.Backend) {
		m, _ := setup(t, b)
		ctx := t.Context()
		var ids []string
		for range keys.MaxActiveKeys - 1 {
			k, err := m.Create(ctx, req("org_a", "u_owner"))
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, k.ID)
		}
		r, err := m.Roll(ctx, "org_a", "u_owner", ids[0], keys.RollOptions{ExpiresInDays: 30, Grace: time.Hour})
		if err != nil {
			t.Fatalf("9 active keys, a roll with a grace: %v", err)
		}
		if _, err := m.Roll(ctx, "org_a", "u_owner", ids[1], keys.RollOptions{ExpiresInDays: 30, Grace: time.Hour}); !errors.Is(err, keys.ErrKeyLimit) {
			t.Fatalf("10 active keys, a roll with a grace: %v, want ErrKeyLimit", err)
		}
		if _, err := m.Roll(ctx, "org_a", "u_owner", r.New.ID, keys.RollOptions{ExpiresInDays: 30}); err != nil {
			t.Fatalf("10 active keys, a roll with no grace: %v", err)
		}
		list, _ := m.List(ctx, "org_a", "u_owner")
		active := 0
		for _, k := range list {
			if k.State == keys.StateActive {
				active++
			}
		}
		if active != keys.MaxActiveKeys {
			t.Fatalf("%d active keys after the rolls, want %d", active, keys.MaxActiveKeys)
		}
	})
}
