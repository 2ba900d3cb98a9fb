package cli_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
)

// TestBinaryRoll: `keys-admin roll` prints the new key alone on stdout, says
// until when the old one works, and maps refusals to the exit codes.
func TestBinaryRoll(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, nil, func(t *testing.T, b dbtest.Backend) {
		if r := run(t, b.URL, "migrate"); r.code != 0 {
			t.Fatalf("migrate: %+v", r)
		}
		if err := keys.UpsertOrganization(t.Context(), b.DB,
			keys.Organization{ID: "org_a", SubscriptionStatus: keys.SubscriptionActive},
			[]keys.Member{{UserID: "owner", Role: keys.RoleOwner}, {UserID: "member", Role: keys.RoleMember}}, time.Now()); err != nil {
			t.Fatal(err)
		}
		if r := run(t, b.URL, "create", "--org", "org_a", "--user", "owner", "--scopes", "campaigns:read,accounts:read", "--name", "etl"); r.code != 0 {
			t.Fatalf("create: %+v", r)
		}
		list := func() []keys.KeyInfo {
			r := run(t, b.URL, "list", "--org", "org_a", "--user", "owner", "-o", "json")
			var l []keys.KeyInfo
			if r.code != 0 || json.Unmarshal([]byte(r.stdout), &l) != nil {
				t.Fatalf("list: %+v", r)
			}
			return l
		}
		old := list()[0]
		for _, c := range []struct {
			args []string
			code int
			says string
		}{
			{[]string{"roll", "--org", "org_a", "--user", "owner"}, 2, "exactly one KEY_ID"},
			{[]string{"roll", "--org", "org_a", "--user", "owner", "--grace", "8d", old.ID}, 2, "0 to 7 days"},
			{[]string{"roll", "--org", "org_a", "--user", "owner", "--grace", "soon", old.ID}, 2, "want a duration"},
			{[]string{"roll", "--org", "org_a", "--user", "member", old.ID}, 3, "owners and admins"},
			{[]string{"roll", "--org", "org_a", "--user", "owner", "key_nope"}, 4, "not found"},
		} {
			if r := run(t, b.URL, c.args...); r.code != c.code || r.stdout != "" || !strings.Contains(r.stderr, c.says) {
				t.Errorf("%q: %+v, want exit %d saying %q", c.args, r, c.code, c.says)
			}
		}
		r := run(t, b.URL, "roll", "--org", "org_a", "--user", "owner", "--grace", "2d", "--expires-in-days", "60", old.ID)
		key := strings.TrimSuffix(r.stdout, "\n")
		if r.code != 0 || apikey.Validate(key) != nil || strings.Contains(r.stderr, key) || !strings.Contains(r.stderr, "accepted until") {
			t.Fatalf("roll: %+v", r)
		}
		l := list()
		if len(l) != 2 || l[0].Name != "etl" || strings.Join(l[0].Scopes, ",") != "accounts:read,campaigns:read" ||
			l[1].ReplacedBy != l[0].ID || l[1].ExpiresAt.Sub(l[0].CreatedAt) != 48*time.Hour {
			t.Fatalf("after the roll: %+v", l)
		}
		if r := run(t, b.URL, "roll", "--org", "org_a", "--user", "owner", old.ID); r.code != 5 || !strings.Contains(r.stderr, "already rolled") {
			t.Fatalf("second roll: %+v", r)
		}
	})
}
