package snapshot

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNoStatementInGo: no string literal of the package's hand-written Go
// holds a statement (the rule of store's test of the same name); the
// statements are files of queries/ (queries.go).
func TestNoStatementInGo(t *testing.T) {
	sql := regexp.MustCompile(`(?i)\b(select|insert|update|delete)\b[\s\S]*\b(from|into|set|where)\b`)
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") || strings.HasSuffix(p, "_gen.go") {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && sql.MatchString(lit.Value) {
				t.Errorf("%s: a statement in Go: %s", p, lit.Value)
			}
			return true
		})
	}
}

// TestQueryFilesDeclared: every file of queries/ is a declared statement.
func TestQueryFilesDeclared(t *testing.T) {
	declared := map[string]bool{}
	for _, st := range statements {
		if st.pg != "" {
			declared[path.Join("queries", "postgres", st.name+".sql")] = true
		}
		if st.sqlite != "" {
			declared[path.Join("queries", "sqlite", st.name+".sql")] = true
		}
	}
	n := 0
	err := fs.WalkDir(queryFiles, "queries", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		if !declared[p] {
			t.Errorf("%s is not a declared statement (queries.go: query)", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(declared) {
		t.Errorf("%d files, %d declared", n, len(declared))
	}
}
