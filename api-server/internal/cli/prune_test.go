package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestPruneCommand: svc-api prune refuses a retention that is no duration
// (usage, exit 2), and on a migrated database prunes the change log
// (nothing old yet) and says so; import takes the same flag.
func TestPruneCommand(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "svc.db")
	run := func(stdin string, args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := Run(t.Context(), args, strings.NewReader(stdin), &out, &errOut)
		return code, errOut.String()
	}
	if code, e := run("", "migrate", "--database-url", db); code != 0 {
		t.Fatalf("migrate: %d %s", code, e)
	}
	if code, e := run("", "prune", "--database-url", db, "--change-retention", "a month"); code != 2 || !strings.Contains(e, "--change-retention") {
		t.Errorf("prune with a bad retention: exit %d %s", code, e)
	}
	doc := `{"organizations":[{"id":"org_x","name":"X","subscriptionStatus":"active"}]}`
	if code, e := run(doc, "import", "--database-url", db, "--progress=false", "--change-retention", "1h", "-"); code != 0 {
		t.Errorf("import: exit %d %s", code, e)
	}
	if code, e := run("", "prune", "--database-url", db, "--change-retention", "1h"); code != 0 || !strings.Contains(e, "pruned 0 change-log entries older than 1h0m0s") {
		t.Errorf("prune: exit %d %s", code, e)
	}
}
