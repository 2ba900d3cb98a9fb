package database_test

import (
	"strings"
	"testing"

	"github.com/adsnap/svc/keys-admin/database"
)

// TestRedact: a printed connection URL keeps its scheme, user, hosts, ports
// and database, and nothing else, whatever the URL holds (issue 30, finding
// 2: sslpassword and every other query parameter were printed).
func TestRedact(t *testing.T) {
	t.Setenv("PGPASSWORD", "")
	t.Setenv("PGSSLPASSWORD", "")
	for _, tc := range []struct{ in, want string }{
		{"postgres://app:s3cret@db.internal:5433/svc?sslmode=verify-full&sslpassword=k3ypass&application_name=x",
			"postgres://app@db.internal:5433/svc"},
		{"postgresql://app@replica-1:5432/svc?password=s3cret&sslmode=disable&options=-c%20search_path%3Dx",
			"postgresql://app@replica-1:5432/svc"},
		// Defaults filled in as pgconn connects: the port.
		{"postgres://app:s3cret@db/svc?sslmode=disable", "postgres://app@db:5432/svc"},
		// Several hosts (pgconn's fallbacks), each once.
		{"postgres://app:s3cret@h1:5432,h2:5433/svc?sslmode=prefer&sslpassword=k3ypass", "postgres://app@h1:5432,h2:5433/svc"},
		// pgconn cannot read it (a certificate file that does not exist):
		// net/url with the same allowlist.
		{"postgres://app:s3cret@db:5432/svc?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem&sslpassword=k3ypass",
			"postgres://app@db:5432/svc"},
		{"sqlite:.data/svc.db", "sqlite:.data/svc.db"},
		{"sqlite:/var/lib/svc/svc.db", "sqlite:/var/lib/svc/svc.db"},
		{"redis://:s3cret@cache:6379/0?addr=k3ypass:1", "redis://cache:6379"},
		{"postgres://app:s3cret@db:bad%zz/svc", "(unparseable url)"},
	} {
		got := database.Redact(tc.in)
		if got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
		for _, secret := range []string{"s3cret", "k3ypass", "sslpassword", "password", "?"} {
			if strings.Contains(got, secret) {
				t.Errorf("Redact(%q) = %q shows %q", tc.in, got, secret)
			}
		}
	}
}
