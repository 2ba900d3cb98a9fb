package store_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
)

// TestGenerated fails when a generated file is not what store/gen writes
// from store/schema now: run `go generate ./internal/store/ ./internal/snapshot/`.
func TestGenerated(t *testing.T) {
	for target, file := range map[string]string{"store": "resources_gen.go", "snapshot": "../snapshot/insight_gen.go"} {
		out := filepath.Join(t.TempDir(), "gen.go")
		cmd := exec.Command("go", "run", "./gen", "-target", target, "-o", out)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go run ./gen -target %s: %v\n%s", target, err, b)
		}
		want, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s is stale: run go generate ./internal/store/ ./internal/snapshot/", file)
		}
	}
}

// TestGeneratedRegions fails when a generated region of a hand-written
// file (a read statement's column list, the insight's declared fields in
// an import statement of snapshot/queries, openapi.yaml's resource
// schemas: gen/regions.go) is not what store/gen writes from store/schema
// now: run `go generate ./internal/store/`.
func TestGeneratedRegions(t *testing.T) {
	cmd := exec.Command("go", "run", "./gen", "-target", "regions", "-check")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./gen -target regions -check: %v\n%s", err, b)
	}
}

// TestPageRelease: the rows' text lives in the page's arena, which Release
// poisons here; JSON taken from a page before its release does not change,
// while a row string kept past Release (possible only inside store) does:
// the check would see a value that outlived its buffer.
func TestPageRelease(t *testing.T) {
	store.PoisonReleased(true)
	defer store.PoisonReleased(false)
	b := dbtest.Postgres(t)
	ctx := t.Context()
	today := time.Now().UTC()
	testenv.Seed(t, b.DB, today)
	st, err := store.New(ctx, b.Handle)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p := store.ListParams{Limit: 10, From: today.AddDate(0, 0, -89).Format(time.DateOnly), To: today.Format(time.DateOnly)}
	_, page, err := st.InsightsPage(ctx, "org_a", p, nil)
	if err != nil || page.Len() == 0 {
		t.Fatalf("%v, %d rows", err, page.Len())
	}
	js, ok := page.AppendJSON(nil, page.Len())
	kept := string(js)
	id := page.Rows()[0].ID
	idCopy := strings.Clone(id)
	page.Release()
	if !ok || string(js) != kept {
		t.Fatal("JSON changed on release")
	}
	if id == idCopy {
		t.Fatal("the released arena was not poisoned: this test checks nothing")
	}
	_, again, err := st.InsightsPage(ctx, "org_a", p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Release()
	if js2, _ := again.AppendJSON(nil, again.Len()); string(js) != kept || string(js2) != kept {
		t.Fatal("a page read again differs, or the JSON taken before changed")
	}
}
