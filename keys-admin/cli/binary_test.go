package cli_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
)

var binary string

// TestMain builds the keys-admin command once; the tests run the binary.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "keys-admin-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "keys-admin")
	build := exec.Command("go", "build", "-o", binary, "../cmd/keys-admin")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build keys-admin:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

func run(t *testing.T, dbURL string, args ...string) result {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), binary, args...)
	cmd.Env = append(os.Environ(), "SVC_DATABASE_URL="+dbURL)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errOut.String(), code}
}

func TestBinary(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, nil, func(t *testing.T, b dbtest.Backend) {
		r := run(t, b.URL, "migrate")
		if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "applied 20261121000001_keys") {
			t.Fatalf("migrate: %+v", r)
		}
		if r := run(t, b.URL, "migrate"); r.code != 0 || !strings.Contains(r.stderr, "up to date") {
			t.Fatalf("second migrate: %+v", r)
		}
		now := time.Now()
		if err := keys.UpsertOrganization(t.Context(), b.DB,
			keys.Organization{ID: "org_a", SubscriptionStatus: keys.SubscriptionActive},
			[]keys.Member{{UserID: "owner", Role: keys.RoleOwner}, {UserID: "member", Role: keys.RoleMember}}, now); err != nil {
			t.Fatal(err)
		}

		r = run(t, b.URL, "create", "--org", "org_a", "--user", "owner", "--scopes", "insights:read,accounts:read", "--expires-in-days", "7", "--name", "etl job")
		key := strings.TrimSuffix(r.stdout, "\n")
		if r.code != 0 || apikey.Validate(key) != nil || strings.Count(r.stdout, "\n") != 1 {
			t.Fatalf("create: %+v", r)
		}
		if strings.Contains(r.stderr, key) || !strings.Contains(r.stderr, "only time the key is shown") ||
			!strings.Contains(r.stderr, "accounts:read,insights:read") {
			t.Fatalf("create stderr: %q", r.stderr)
		}

		r = run(t, b.URL, "list", "--org", "org_a", "--user", "owner", "-o", "json")
		var list []keys.KeyInfo
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &list) != nil || len(list) != 1 {
			t.Fatalf("list json: %+v", r)
		}
		if strings.Contains(r.stdout, key) || list[0].Name != "etl job" || list[0].State != "active" || list[0].Hint != apikey.Hint(key) {
			t.Fatalf("list: %+v", list)
		}
		r = run(t, b.URL, "list", "--org", "org_a", "--user", "owner")
		if r.code != 0 || !strings.HasPrefix(r.stdout, "ID ") || !strings.Contains(r.stdout, list[0].ID) || !strings.Contains(r.stdout, "never") {
			t.Fatalf("list table: %+v", r)
		}

		refusals := []struct {
			name string
			args []string
			code int
			says string
		}{
			{"missing flag", []string{"create", "--org", "org_a"}, 2, "required flag"},
			{"unknown scope", []string{"create", "--org", "org_a", "--user", "owner", "--scopes", "ads:write"}, 2, "unknown scope"},
			{"expiry 91", []string{"create", "--org", "org_a", "--user", "owner", "--scopes", "accounts:read", "--expires-in-days", "91"}, 2, "1 to 90 days"},
			{"plain member", []string{"create", "--org", "org_a", "--user", "member", "--scopes", "accounts:read"}, 3, "owners and admins"},
			{"unknown user", []string{"list", "--org", "org_a", "--user", "nobody"}, 3, "not a member"},
			{"unknown org", []string{"list", "--org", "org_x", "--user", "owner"}, 4, "organization not found"},
			{"unknown key", []string{"revoke", "--org", "org_a", "--user", "owner", "key_nope"}, 4, "not found"},
			{"revoke without id", []string{"revoke", "--org", "org_a", "--user", "owner"}, 2, "exactly one KEY_ID"},
			{"bad output", []string{"list", "--org", "org_a", "--user", "owner", "-o", "xml"}, 2, "want table or json"},
		}
		for _, tc := range refusals {
			r := run(t, b.URL, tc.args...)
			if r.code != tc.code || r.stdout != "" || !strings.Contains(r.stderr, tc.says) {
				t.Errorf("%s: %+v, want exit %d saying %q", tc.name, r, tc.code, tc.says)
			}
		}

		r = run(t, b.URL, "revoke", "--org", "org_a", "--user", "owner", list[0].ID)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "revoked "+list[0].ID) {
			t.Fatalf("revoke: %+v", r)
		}
		if r := run(t, b.URL, "revoke", "--org", "org_a", "--user", "owner", list[0].ID); r.code != 5 || !strings.Contains(r.stderr, "already revoked") {
			t.Fatalf("second revoke: %+v", r)
		}
		if r := run(t, b.URL, "list", "--org", "org_a", "--user", "owner", "-o", "json"); !strings.Contains(r.stdout, `"state": "revoked"`) {
			t.Fatalf("list after revoke: %+v", r)
		}
		for range 10 {
			if r := run(t, b.URL, "create", "--org", "org_a", "--user", "owner", "--scopes", "accounts:read"); r.code != 0 {
				t.Fatalf("create: %+v", r)
			}
		}
		if r := run(t, b.URL, "create", "--org", "org_a", "--user", "owner", "--scopes", "accounts:read"); r.code != 5 || r.stdout != "" {
			t.Fatalf("11th key: %+v", r)
		}
	})
}

func TestBinaryWithoutDatabase(t *testing.T) {
	t.Parallel()
	cmd := exec.CommandContext(t.Context(), binary, "list", "--org", "a", "--user", "b")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), "SVC_DATABASE_URL") {
		t.Fatalf("%v: %s", err, out)
	}
	// An unreachable database is 6 (try again later); a password or a query
	// parameter of the URL never reaches the output (database.Redact).
	cmd = exec.CommandContext(t.Context(), binary, "list", "--org", "a", "--user", "b", "--database-url", "postgres://u:hunter2pw@127.0.0.1:1/x?sslmode=disable&sslpassword=hunter3pw")
	out, err = cmd.CombinedOutput()
	if !errors.As(err, &exit) || exit.ExitCode() != 6 || strings.Contains(string(out), "hunter2pw") || strings.Contains(string(out), "hunter3pw") ||
		!strings.Contains(string(out), "postgres://u@127.0.0.1:1/x") {
		t.Fatalf("unreachable database: %v: %s", err, out)
	}
	// A URL of another kind is a usage error: nothing was tried.
	cmd = exec.CommandContext(t.Context(), binary, "migrate", "--database-url", "mysql://u@h/x")
	out, err = cmd.CombinedOutput()
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), "want postgres://") {
		t.Fatalf("bad database url: %v: %s", err, out)
	}
}
