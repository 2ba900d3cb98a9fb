package e2e

// Deliberate copies across modules that share no module to hold one copy:
// each test here fails when the copies differ.

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/sdk-go/svctest"
)

// funcSource returns the source of the function name in file (its doc
// comment included), as go/printer prints it.
func funcSource(t *testing.T, file, name string) string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == name {
			var b bytes.Buffer
			if fd.Doc != nil {
				for _, c := range fd.Doc.List {
					b.WriteString(c.Text + "\n")
				}
			}
			if err := printer.Fprint(&b, fset, fd); err != nil {
				t.Fatal(err)
			}
			return b.String()
		}
	}
	t.Fatalf("%s has no function %s", file, name)
	return ""
}

// TestVersionFunctionsAreOne: svc-api, svc and keys-admin report their
// version with one behaviour (-ldflags -X, else the module version from the
// build information, main module or dependency, else "dev"), written out in
// each module because no module all three depend on could hold it. The
// functions and their test tables must stay identical.
func TestVersionFunctionsAreOne(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	copies := []struct{ src, test string }{
		{"api-server/internal/cli/version.go", "api-server/internal/cli/version_test.go"},
		{"keys-admin/cli/version.go", "keys-admin/cli/version_test.go"},
		{"svc-cli/internal/build/build.go", "svc-cli/internal/build/build_test.go"},
	}
	for _, fn := range []struct {
		name string
		test bool
	}{
		{"binaryVersion", false}, {"moduleVersion", false}, {"TestModuleVersion", true}, {"TestBinaryVersion", true},
	} {
		var first string
		for i, c := range copies {
			file := c.src
			if fn.test {
				file = c.test
			}
			got := funcSource(t, filepath.Join(root, file), fn.name)
			if i == 0 {
				first = got
				continue
			}
			if got != first {
				t.Errorf("%s in %s differs from %s's:\n%s\nwant:\n%s", fn.name, file, copies[0].src, got, first)
			}
		}
	}
}

// TestKeyMakerMatchesKeysAdmin: svctest.MakeKey, the key maker of the SDK's
// and its users' tests (sdk-go/internal/keyformat, the SDK's one copy of the
// checksum), makes from the random part of a key that keys-admin generated
// exactly that key, and keys-admin accepts each key it makes.
func TestKeyMakerMatchesKeysAdmin(t *testing.T) {
	t.Parallel()
	for range 200 {
		key, err := apikey.Generate()
		if err != nil {
			t.Fatal(err)
		}
		random := key[len(apikey.Prefix) : len(apikey.Prefix)+apikey.RandomLen]
		if got := svctest.MakeKey(random); got != key {
			t.Fatalf("svctest.MakeKey(%q) = %q, keys-admin generated %q", random, got, key)
		}
	}
	for _, random := range []string{strings.Repeat("0", apikey.RandomLen), strings.Repeat("z", apikey.RandomLen)} {
		if err := apikey.Validate(svctest.MakeKey(random)); err != nil {
			t.Errorf("keys-admin refuses svctest.MakeKey(%q): %v", random, err)
		}
	}
}
