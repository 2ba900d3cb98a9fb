package store_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
)

// TestQueries: every file of queries/ is a declared statement, and every
// statement returns, on the database of its dialect, the columns its reader
// reads: the leading meta columns (on PostgreSQL with the key-state epoch,
// read as keys-admin's contract says), then exactly the columns of its
// resource that the generated decoder and scan read (schema), in order. A
// field added to schema without its column in a statement, or a column
// moved in a file, fails here.
func TestQueries(t *testing.T) {
	declared := map[string]bool{}
	for _, st := range store.Statements() {
		if st.PG != "" {
			declared[store.QueryPath("postgres", st.Name)] = true
		}
		if st.SQLite != "" {
			declared[store.QueryPath("sqlite", st.Name)] = true
		}
	}
	files := store.QueryFiles()
	for _, f := range files {
		if !declared[f] {
			t.Errorf("%s is not a declared statement (queries.go: query)", f)
		}
	}
	if len(files) != len(declared) {
		t.Errorf("%d files, %d declared statements", len(files), len(declared))
	}

	ctx := t.Context()
	pg := dbtest.Postgres(t)
	if err := testenv.Migrate(ctx, pg.DB); err != nil {
		t.Fatal(err)
	}
	conn, err := pg.Handle.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	lite := dbtest.SQLite(t)
	if err := testenv.Migrate(ctx, lite.DB); err != nil {
		t.Fatal(err)
	}
	// keys-admin's contract (keys-admin/keys/pending.go, step 2): the
	// epoch is read by this scalar subquery and nothing else of keys-admin's.
	const contract = "(SELECT epoch FROM key_state_epochs WHERE organization_id = $1) AS key_epoch"
	for _, st := range store.Statements() {
		if st.Columns == nil {
			continue
		}
		if st.PG != "" && (strings.Count(st.PG, "key_state_epochs") != 1 || !strings.Contains(st.PG, contract)) {
			t.Errorf("postgres/%s.sql does not read the key-state epoch as keys-admin's contract says: %s", st.Name, contract)
		}
		if st.PG != "" {
			sd, err := conn.Conn().Prepare(ctx, "", st.PG)
			if err != nil {
				t.Fatalf("%s: %v", st.Name, err)
			}
			var got []string
			for _, f := range sd.Fields {
				got = append(got, f.Name)
			}
			if want := slices.Concat(st.LeadPG, st.Columns); !slices.Equal(got, want) {
				t.Errorf("postgres/%s.sql returns %v, want %v", st.Name, got, want)
			}
		}
		if st.SQLite != "" {
			rows, err := lite.DB.DB.QueryContext(ctx, st.SQLite, sqliteArgs(st.SQLite)...)
			if err != nil {
				t.Fatalf("%s: %v", st.Name, err)
			}
			got, err := rows.Columns()
			rows.Close()
			if err != nil {
				t.Fatal(err)
			}
			if want := slices.Concat(st.LeadSQLite, st.Columns); !slices.Equal(got, want) {
				t.Errorf("sqlite/%s.sql returns %v, want %v", st.Name, got, want)
			}
		}
	}
}

// sqliteArgs are arguments for the ?N parameters of a SQLite statement:
// 0 for ?2 and ?3 (limit, offset), text for the others.
func sqliteArgs(q string) []any {
	n := 0
	for _, m := range regexp.MustCompile(`\?(\d+)`).FindAllStringSubmatch(q, -1) {
		i, _ := strconv.Atoi(m[1])
		n = max(n, i)
	}
	args := make([]any, n)
	for i := range args {
		args[i] = "x"
		if i == 1 || i == 2 {
			args[i] = 0
		}
	}
	return args
}

// TestNoStatementInGo: no string literal of the store's hand-written Go
// holds a statement; they are files of queries/ (queries.go).
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
