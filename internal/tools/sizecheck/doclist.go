package sizecheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// DocList is what a package's doc.go says of the package's own files, when
// it names any (a doc.go that names none is not a file list).
type DocList struct {
	Dir string
	// Missing are the package's non-test Go files doc.go does not name;
	// Stale the names doc.go gives that are no file of the package.
	Missing, Stale []string
}

// docFileName is a bare Go file name in a comment: not part of a path
// (keys/pending.go names another package's file).
var docFileName = regexp.MustCompile(`(?:^|[^\w/.-])([a-z0-9_]+\.go)\b`)

// DocLists checks the doc.go of every package under root whose doc.go
// names one of the package's own files: it must name them all, and
// nothing else that looks like a file of its own.
func DocLists(root string) (lists []DocList, err error) {
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (n == "testdata" || n == "node_modules" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() != "doc.go" {
			return nil
		}
		l, listed, err := docList(filepath.Dir(path))
		if err == nil && listed {
			lists = append(lists, l)
		}
		return err
	})
	return lists, err
}

func docList(dir string) (DocList, bool, error) {
	doc, err := os.ReadFile(filepath.Join(dir, "doc.go"))
	if err != nil {
		return DocList{}, false, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return DocList{}, false, err
	}
	var files []string
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") && n != "doc.go" {
			files = append(files, n)
		}
	}
	named := map[string]bool{}
	for _, m := range docFileName.FindAllStringSubmatch(string(doc), -1) {
		named[m[1]] = true
	}
	l := DocList{Dir: dir}
	listed := false
	for _, f := range files {
		if named[f] {
			listed = true
		} else {
			l.Missing = append(l.Missing, f)
		}
	}
	for n := range named {
		if n != "doc.go" && !slices.Contains(files, n) {
			l.Stale = append(l.Stale, n)
		}
	}
	slices.Sort(l.Stale)
	return l, listed, nil
}
