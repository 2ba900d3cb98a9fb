// Package sizecheck measures hand-written Go: the lines of each non-test
// file and of each function (sizecheck.go). Its test holds api-server and
// keys-admin to the limits of issue 31 (MaxFileLines, MaxFuncLines).
// DocLists (doclist.go) finds the package docs whose file lists went
// stale; TestDocFileLists holds every module to them (issue 41).
//
// Generated files (the standard "Code generated ... DO NOT EDIT." header)
// are not measured. A table or a template may be longer when it says so: a
// file whose comments hold a line starting with ExemptFile, or a function
// whose doc comment holds a line starting with ExemptFunc, followed by the
// reason.
package sizecheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
)

// The limits of hand-written, non-test Go (issue 31, item 6).
const (
	MaxFileLines = 400
	MaxFuncLines = 80
)

// The markers of an excepted table or template.
const (
	ExemptFile = "sizecheck:table-file"
	ExemptFunc = "sizecheck:table-func"
)

// Offense is one file or function over its limit.
type Offense struct {
	Path  string // relative to the scanned root
	Func  string // "" for the file itself
	Lines int
	Limit int
}

func (o Offense) String() string {
	if o.Func == "" {
		return fmt.Sprintf("%s: %d lines (limit %d)", o.Path, o.Lines, o.Limit)
	}
	return fmt.Sprintf("%s: func %s: %d lines (limit %d)", o.Path, o.Func, o.Lines, o.Limit)
}

// Scan measures every non-test .go file under root (testdata, vendor and
// node_modules skipped) and returns what is over its limit, and how many
// files it measured.
func Scan(root string) ([]Offense, int, error) {
	var out []Offense
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", "vendor", "node_modules":
				return filepath.SkipDir
			}
			if path != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		offs, measured, err := scanFile(path, rel)
		if measured {
			n++
		}
		out = append(out, offs...)
		return err
	})
	return out, n, err
}

func scanFile(path, rel string) ([]Offense, bool, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, false, err
	}
	if ast.IsGenerated(f) {
		return nil, false, nil
	}
	var out []Offense
	if lines := fset.File(f.Pos()).LineCount(); lines > MaxFileLines && !marked(f.Comments, ExemptFile) {
		out = append(out, Offense{Path: rel, Lines: lines, Limit: MaxFileLines})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		var name string
		var body *ast.BlockStmt
		var doc *ast.CommentGroup
		switch fn := n.(type) {
		case *ast.FuncDecl:
			name, body, doc = fn.Name.Name, fn.Body, fn.Doc
			if fn.Recv != nil && len(fn.Recv.List) == 1 {
				name = recvName(fn.Recv.List[0].Type) + "." + name
			}
		case *ast.FuncLit:
			// A literal is measured as part of its enclosing function;
			// a package-level one (var f = func...) on its own.
			return true
		default:
			return true
		}
		if body == nil {
			return false
		}
		lines := fset.Position(n.End()).Line - fset.Position(n.Pos()).Line + 1
		if lines > MaxFuncLines && !marked([]*ast.CommentGroup{doc}, ExemptFunc) {
			out = append(out, Offense{Path: rel, Func: name, Lines: lines, Limit: MaxFuncLines})
		}
		return true
	})
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range gd.Specs {
			vs, ok := spec.(*ast.ValueSpec)
			if !ok {
				continue
			}
			for i, v := range vs.Values {
				if fl, ok := v.(*ast.FuncLit); ok {
					lines := fset.Position(fl.End()).Line - fset.Position(fl.Pos()).Line + 1
					if lines > MaxFuncLines && !marked([]*ast.CommentGroup{gd.Doc, vs.Doc}, ExemptFunc) {
						out = append(out, Offense{Path: rel, Func: vs.Names[i].Name, Lines: lines, Limit: MaxFuncLines})
					}
				}
			}
		}
	}
	return out, true, nil
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return "(*" + recvName(t.X) + ")"
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.IndexListExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

// marked reports whether a comment line starts with marker followed by a
// reason.
func marked(groups []*ast.CommentGroup, marker string) bool {
	for _, g := range groups {
		if g == nil {
			continue
		}
		for _, c := range g.List {
			text := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(c.Text, "//"), "/*"))
			if rest, ok := strings.CutPrefix(text, marker); ok && strings.TrimSpace(rest) != "" {
				return true
			}
		}
	}
	return false
}
