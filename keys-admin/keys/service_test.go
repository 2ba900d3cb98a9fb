package keys_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/uptrace/bun"
)

// fakeClock is a settable clock shared by a test and its Manager and Service.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time          { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func migrate(ctx context.Context, db *bun.DB) error {
	_, err := keys.Migrate(ctx, db)
	return err
}

func ptr[T any](v T) *T { return &v }

// seed creates the organizations every test uses.
func seed(t *testing.T, db *bun.DB) {
	t.Helper()
	ctx := t.Context()
	orgs := []struct {
		org     keys.Organization
		members []keys.Member
	}{
		{keys.Organization{ID: "org_a", Name: "Acme", SubscriptionStatus: keys.SubscriptionActive}, []keys.Member{
			{UserID: "u_owner", Role: keys.RoleOwner},
			{UserID: "u_admin", Role: keys.RoleAdmin},
			{UserID: "u_member", Role: keys.RoleMember},
			{UserID: "u_gone", Role: keys.RoleAdmin, RemovedAt: ptr(t0.Add(-time.Hour))},
		}},
		{keys.Organization{ID: "org_b", Name: "Beta", SubscriptionStatus: keys.SubscriptionActive}, []keys.Member{
			{UserID: "u_b", Role: keys.RoleOwner},
		}},
		{keys.Organization{ID: "org_trial", SubscriptionStatus: keys.SubscriptionTrialing, TrialEndsAt: ptr(t0.Add(7 * 24 * time.Hour))}, []keys.Member{
			{UserID: "u_t", Role: keys.RoleOwner},
		}},
		{keys.Organization{ID: "org_trial_over", SubscriptionStatus: keys.SubscriptionTrialing, TrialEndsAt: ptr(t0.Add(-24 * time.Hour))}, []keys.Member{
			{UserID: "u_e", Role: keys.RoleOwner},
		}},
		{keys.Organization{ID: "org_canceled", SubscriptionStatus: keys.SubscriptionCanceled}, []keys.Member{
			{UserID: "u_c", Role: keys.RoleOwner},
		}},
	}
	for _, o := range orgs {
		if err := keys.UpsertOrganization(ctx, db, o.org, o.members, t0); err != nil {
			t.Fatal(err)
		}
	}
}

func setup(t *testing.T, b dbtest.Backend) (*keys.Manager, *fakeClock) {
	seed(t, b.DB)
	clk := &fakeClock{t: t0}
	return keys.NewManager(b.DB, keys.WithManagerClock(clk.Now)), clk
}

func count(t *testing.T, db *bun.DB, table string) int {
	t.Helper()
	n, err := db.NewSelect().TableExpr(table).Count(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

func req(org, user string) keys.CreateRequest {
	return keys.CreateRequest{OrganizationID: org, UserID: user, Name: "ci", Scopes: apikey.NewScopes(apikey.ScopeAccountsRead), ExpiresInDays: 30}
}

func TestCreateListStoresOnlyHash(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, migrate, func(t *testing.T, b dbtest.Backend) {
		svc, _ := setup(t, b)
		ctx := t.Context()
		r := req("org_a", "u_admin")
		r.Scopes = apikey.NewScopes(apikey.ScopeInsightsRead, apikey.ScopeAccountsRead)
		created, err := svc.Create(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		if err := apikey.Validate(created.Key); err != nil {
			t.Fatalf("created key invalid: %v", err)
		}
		if created.State != keys.StateActive || created.Hint != apikey.Hint(created.Key) ||
			!created.ExpiresAt.Equal(t0.AddDate(0, 0, 30)) || created.IssuerID != "u_admin" {
			t.Fatalf("unexpected created key info: %+v", created.KeyInfo)
		}
		if strings.Join(created.Scopes, ",") != "accounts:read,insights:read" {
			t.Fatalf("scopes = %v", created.Scopes)
		}

		// The database holds the SHA-256 and never the value, in any column.
		var row struct {
			Hash []byte `bun:"key_hash"`
			All  string `bun:"all_text"`
		}
		if err := b.DB.NewSelect().TableExpr("developer_keys").
			ColumnExpr("key_hash").
			ColumnExpr("id || name || scopes || hint || issuer_user_id AS all_text").
			Scan(ctx, &row); err != nil {
			t.Fatal(err)
		}
		if string(row.Hash) != string(apikey.Hash(created.Key)) {
			t.Fatal("stored hash is not the SHA-256 of the key")
		}
		if strings.Contains(row.All, created.Key[len(apikey.Prefix):len(apikey.Prefix)+20]) {
			t.Fatal("a text column holds the key value")
		}

		list, err := svc.List(ctx, "org_a", "u_owner")
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1 || list[0].ID != created.ID || list[0].State != keys.StateActive || list[0].Name != "ci" {
			t.Fatalf("List = %+v", list)
		}
		js, _ := json.Marshal(list)
		if strings.Contains(string(js), created.Key) || strings.Contains(strings.ToLower(string(js)), "hash") {
			t.Fatalf("List JSON leaks the key or a hash: %s", js)
		}
		if other, err := svc.List(ctx, "org_b", "u_b"); err != nil || len(other) != 0 {
			t.Fatalf("org_b sees %d keys (err %v)", len(other), err)
		}
		audit, err := svc.Audit(ctx, "org_a")
		if err != nil || len(audit) != 1 || audit[0].Action != "create" || audit[0].ActorUserID != "u_admin" ||
			audit[0].KeyID != created.ID || !audit[0].At.Equal(t0) {
			t.Fatalf("audit = %+v, %v", audit, err)
		}
	})
}

func TestCreateRefusalsWriteNothing(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, migrate, func(t *testing.T, b dbtest.Backend) {
		svc, _ := setup(t, b)
		with := func(f func(*keys.CreateRequest)) keys.CreateRequest {
			r := req("org_a", "u_owner")
			f(&r)
			return r
		}
		cases := []struct {
			name string
			req  keys.CreateRequest
			want error
		}{
			{"no scope", with(func(r *keys.CreateRequest) { r.Scopes = 0 }), keys.ErrInvalidScopes},
			{"unknown scope bit", with(func(r *keys.CreateRequest) { r.Scopes = 1 << 6 }), keys.ErrInvalidScopes},
			{"expiry 0 days", with(func(r *keys.CreateRequest) { r.ExpiresInDays = 0 }), keys.ErrInvalidExpiry},
			{"expiry 91 days", with(func(r *keys.CreateRequest) { r.ExpiresInDays = 91 }), keys.ErrInvalidExpiry},
			{"name too long", with(func(r *keys.CreateRequest) { r.Name = strings.Repeat("n", 101) }), keys.ErrInvalidName},
			{"name with control", with(func(r *keys.CreateRequest) { r.Name = "a\x1b[31m" }), keys.ErrInvalidName},
			{"unknown organization", req("org_nope", "u_owner"), keys.ErrOrganizationNotFound},
			{"unknown user", req("org_a", "u_stranger"), keys.ErrNotMember},
			{"member of another org", req("org_a", "u_b"), keys.ErrNotMember},
			{"removed admin", req("org_a", "u_gone"), keys.ErrMemberRemoved},
			{"plain member", req("org_a", "u_member"), keys.ErrNotAdmin},
			{"trial over", req("org_trial_over", "u_e"), keys.ErrSubscriptionInactive},
			{"canceled", req("org_canceled", "u_c"), keys.ErrSubscriptionInactive},
		}
		for _, tc := range cases {
			_, err := svc.Create(t.Context(), tc.req)
			if !errors.Is(err, tc.want) {
				t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
			}
			// CanCreate gives the same refusal for the rules that need the
			// database, and nil where only the request's own fields are wrong.
			can := svc.CanCreate(t.Context(), tc.req.OrganizationID, tc.req.UserID)
			if tc.req.Validate() == nil && !errors.Is(can, tc.want) || tc.req.Validate() != nil && can != nil {
				t.Errorf("%s: CanCreate = %v", tc.name, can)
			}
		}
		var subErr *keys.SubscriptionError
		err := svc.CanCreate(t.Context(), "org_trial_over", "u_e")
		if !errors.As(err, &subErr) || !subErr.TrialOver() || subErr.TrialEndsAt == nil ||
			!strings.Contains(err.Error(), "trial ended") {
			t.Errorf("trial over: %#v", err)
		}
		if err := svc.CanCreate(t.Context(), "org_canceled", "u_c"); !errors.As(err, &subErr) || subErr.TrialOver() || subErr.Status != keys.SubscriptionCanceled {
			t.Errorf("canceled: %#v", err)
		}
		if n := count(t, b.DB, "developer_keys"); n != 0 {
			t.Errorf("%d keys written by refused creations", n)
		}
		if n := count(t, b.DB, "developer_key_audit"); n != 0 {
			t.Errorf("%d audit rows written by refused creations", n)
		}
		// Boundaries that are allowed.
		for _, r := range []keys.CreateRequest{
			with(func(r *keys.CreateRequest) { r.ExpiresInDays = 1 }),
			with(func(r *keys.CreateRequest) { r.ExpiresInDays = 90; r.Name = strings.Repeat("é", 100) }),
			req("org_trial", "u_t"),
		} {
			if _, err := svc.Create(t.Context(), r); err != nil {
				t.Errorf("Create(%+v) = %v", r, err)
			}
		}
	})
}

func TestKeyLimitCountsOnlyActiveKeys(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, migrate, func(t *testing.T, b dbtest.Backend) {
		svc, clk := setup(t, b)
		ctx := t.Context()
		short := req("org_a", "u_owner")
		short.ExpiresInDays = 1
		if _, err := svc.Create(ctx, short); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for range keys.MaxActiveKeys - 1 {
			k, err := svc.Create(ctx, req("org_a", "u_owner"))
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, k.ID)
		}
		if _, err := svc.Create(ctx, req("org_a", "u_owner")); !errors.Is(err, keys.ErrKeyLimit) {
			t.Fatalf("11th key: err = %v, want ErrKeyLimit", err)
		}
		if err := svc.CanCreate(ctx, "org_a", "u_owner"); !errors.Is(err, keys.ErrKeyLimit) {
			t.Fatalf("CanCreate at the limit: err = %v, want ErrKeyLimit", err)
		}
		// Another organization is unaffected.
		if _, err := svc.Create(ctx, req("org_b", "u_b")); err != nil {
			t.Fatalf("org_b: %v", err)
		}
		// A revoked key frees a place.
		if _, err := svc.Revoke(ctx, "org_a", "u_owner", ids[0]); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Create(ctx, req("org_a", "u_owner")); err != nil {
			t.Fatalf("after revoke: %v", err)
		}
		if _, err := svc.Create(ctx, req("org_a", "u_owner")); !errors.Is(err, keys.ErrKeyLimit) {
			t.Fatalf("limit again: err = %v", err)
		}
		// An expired key frees a place too.
		clk.Advance(25 * time.Hour)
		if _, err := svc.Create(ctx, req("org_a", "u_owner")); err != nil {
			t.Fatalf("after expiry: %v", err)
		}
		list, _ := svc.List(ctx, "org_a", "u_owner")
		states := map[string]int{}
		for _, k := range list {
			states[k.State]++
		}
		if states[keys.StateActive] != 10 || states[keys.StateRevoked] != 1 || states[keys.StateExpired] != 1 {
			t.Fatalf("states = %v", states)
		}
	})
}

func TestConcurrentCreationsNeverExceedLimit(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, migrate, func(t *testing.T, b dbtest.Backend) {
		svc, _ := setup(t, b)
		const n = 50
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() {
				_, errs[i] = svc.Create(t.Context(), req("org_a", "u_owner"))
			})
		}
		wg.Wait()
		ok, limited := 0, 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case errors.Is(err, keys.ErrKeyLimit):
				limited++
			default:
				t.Errorf("unexpected error: %v", err)
			}
		}
		active, err := b.DB.NewSelect().TableExpr("developer_keys").
			Where("organization_id = 'org_a' AND revoked_at IS NULL").Count(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d created, %d refused, %d active", b.Name, ok, limited, active)
		if ok != keys.MaxActiveKeys || limited != n-keys.MaxActiveKeys || active != keys.MaxActiveKeys {
			t.Fatalf("%d created, %d refused, %d active; want 10, 40, 10", ok, limited, active)
		}
	})
}

func TestRevoke(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, migrate, func(t *testing.T, b dbtest.Backend) {
		svc, clk := setup(t, b)
		ctx := t.Context()
		a, _ := svc.Create(ctx, req("org_a", "u_owner"))
		bk, _ := svc.Create(ctx, req("org_b", "u_b"))
		trial, err := svc.Create(ctx, req("org_trial", "u_t"))
		if err != nil {
			t.Fatal(err)
		}

		if _, err := svc.Revoke(ctx, "org_a", "u_owner", bk.ID); !errors.Is(err, keys.ErrKeyNotFound) {
			t.Errorf("revoke other org's key: %v", err)
		}
		if _, err := svc.Revoke(ctx, "org_a", "u_owner", "key_nope"); !errors.Is(err, keys.ErrKeyNotFound) {
			t.Errorf("revoke unknown key: %v", err)
		}
		if _, err := svc.Revoke(ctx, "org_a", "u_member", a.ID); !errors.Is(err, keys.ErrNotAdmin) {
			t.Errorf("member revokes: %v", err)
		}
		if _, err := svc.Revoke(ctx, "org_a", "u_gone", a.ID); !errors.Is(err, keys.ErrMemberRemoved) {
			t.Errorf("removed admin revokes: %v", err)
		}
		if n := count(t, b.DB, "developer_key_audit"); n != 3 {
			t.Fatalf("refused revocations wrote audit rows: %d", n)
		}
		clk.Advance(time.Minute)
		info, err := svc.Revoke(ctx, "org_a", "u_admin", a.ID)
		if err != nil || info.State != keys.StateRevoked || info.RevokedAt == nil || !info.RevokedAt.Equal(t0.Add(time.Minute)) {
			t.Fatalf("revoke: %+v, %v", info, err)
		}
		if _, err := svc.Revoke(ctx, "org_a", "u_owner", a.ID); !errors.Is(err, keys.ErrAlreadyRevoked) {
			t.Errorf("second revoke: %v", err)
		}
		// Revocation still works after the trial ended.
		clk.Advance(8 * 24 * time.Hour)
		if _, err := svc.Create(ctx, req("org_trial", "u_t")); !errors.Is(err, keys.ErrSubscriptionInactive) {
			t.Errorf("create after trial: %v", err)
		}
		if _, err := svc.Revoke(ctx, "org_trial", "u_t", trial.ID); err != nil {
			t.Errorf("revoke after trial: %v", err)
		}
		audit, _ := svc.Audit(ctx, "org_a")
		if len(audit) != 2 || audit[1].Action != "revoke" || audit[1].ActorUserID != "u_admin" || audit[1].KeyID != a.ID {
			t.Fatalf("audit = %+v", audit)
		}
	})
}

func TestMigrateIsIdempotent(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, nil, func(t *testing.T, b dbtest.Backend) {
		first, err := keys.Migrate(t.Context(), b.DB)
		if err != nil || len(first) == 0 {
			t.Fatalf("first migrate: %v, %v", first, err)
		}
		again, err := keys.Migrate(t.Context(), b.DB)
		if err != nil || len(again) != 0 {
			t.Fatalf("second migrate applied %v, %v", again, err)
		}
	})
}

// TestErrorKinds: each error of the package matches exactly the kind its
// callers map to a status or an exit code, also when wrapped.
func TestErrorKinds(t *testing.T) {
	t.Parallel()
	kinds := []error{keys.ErrInvalid, keys.ErrRefused, keys.ErrNotFound, keys.ErrConflict}
	for err, want := range map[error]error{
		keys.ErrInvalidScopes: keys.ErrInvalid, keys.ErrInvalidExpiry: keys.ErrInvalid, keys.ErrInvalidName: keys.ErrInvalid,
		keys.ErrNotMember: keys.ErrRefused, keys.ErrMemberRemoved: keys.ErrRefused, keys.ErrNotAdmin: keys.ErrRefused,
		keys.ErrSubscriptionInactive: keys.ErrRefused, &keys.SubscriptionError{Status: keys.SubscriptionCanceled}: keys.ErrRefused,
		keys.ErrIssuerNotAdmin: keys.ErrRefused, keys.ErrScopeMissing: keys.ErrRefused,
		&keys.ScopeError{Scope: apikey.ScopeInsightsRead}: keys.ErrRefused,
		keys.ErrOrganizationNotFound:                      keys.ErrNotFound, keys.ErrKeyNotFound: keys.ErrNotFound,
		keys.ErrKeyLimit: keys.ErrConflict, keys.ErrAlreadyRevoked: keys.ErrConflict,
		keys.ErrUnauthenticated: nil, errors.New("connection refused"): nil,
	} {
		wrapped := fmt.Errorf("context: %w", err)
		for _, k := range kinds {
			if got := errors.Is(wrapped, k); got != (k == want) {
				t.Errorf("errors.Is(%q, %v) = %v", err, k, got)
			}
		}
	}
	var se *keys.ScopeError
	err := fmt.Errorf("authorize: %w", &keys.ScopeError{Scope: apikey.ScopeCampaignsRead})
	if !errors.As(err, &se) || se.Scope != apikey.ScopeCampaignsRead || !errors.Is(err, keys.ErrScopeMissing) {
		t.Errorf("ScopeError: As %v, Is(ErrScopeMissing) %v", se, errors.Is(err, keys.ErrScopeMissing))
	}
	if got, want := err.Error(), "authorize: the api key lacks the required scope: campaigns:read"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}
