package sizecheck

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDocFileLists keeps the file lists of package docs true in every
// module of the workspace: a doc.go that names one of its package's files
// names them all, and names no file the package does not have (issue 41).
// A package doc that names none of its files is not a list and is left
// alone.
func TestDocFileLists(t *testing.T) {
	n := 0
	for _, mod := range []string{"api-server", "keys-admin", "sdk-go", "svc-cli", "svc-mcp", "e2e", "internal/tools"} {
		root := filepath.Join("..", "..", "..", mod)
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
			t.Fatalf("%s: %v", mod, err)
		}
		lists, err := DocLists(root)
		if err != nil {
			t.Fatalf("%s: %v", mod, err)
		}
		for _, l := range lists {
			n++
			for _, f := range l.Missing {
				t.Errorf("%s/doc.go does not name %s", l.Dir, f)
			}
			for _, f := range l.Stale {
				t.Errorf("%s/doc.go names %s, which is no file of the package", l.Dir, f)
			}
		}
	}
	if n < 10 {
		t.Fatalf("%d package docs list files; the scan found too few", n)
	}
}

// TestDocListsFindsStale checks the check on a package written here.
func TestDocListsFindsStale(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"doc.go":    "// Package p: a.go does A, gone.go did G; see keys/pending.go.\npackage p\n",
		"a.go":      "package p\n",
		"b.go":      "package p\n",
		"b_test.go": "package p\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lists, err := DocLists(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(lists) != 1 || len(lists[0].Missing) != 1 || lists[0].Missing[0] != "b.go" ||
		len(lists[0].Stale) != 1 || lists[0].Stale[0] != "gone.go" {
		t.Fatalf("%+v; want b.go missing and gone.go stale", lists)
	}
}
