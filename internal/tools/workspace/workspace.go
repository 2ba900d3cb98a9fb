// Package workspace checks that go.work lets plain go commands build the
// repository on a fresh clone: every module of the repository is in go.work,
// and each sibling version that a go.mod requires is replaced by the
// sibling's own directory, so that the go command never asks a module proxy
// for a version that is not published (DESIGN §1).
//
// The replacements are pinned to a version on purpose: a go.mod that
// requires a version go.work does not replace fails at once in the
// workspace, instead of being built quietly against the tree, and `make
// release` moves the go.mod requirements and the replacements together.
package workspace

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"

	"github.com/adsnap/svc/internal/tools/versions"
)

// Check returns every rule the workspace at root breaks, one sentence each
// saying what to change, or none:
//
//   - every go.mod of the tree is used by go.work;
//   - no go.mod replaces a sibling;
//   - a go.mod requires a sibling at the version versions.yaml names;
//   - go.work replaces each sibling version a go.mod requires with the
//     sibling's directory, and replaces nothing else.
//
// The error is for files that cannot be read or parsed.
func Check(root string) ([]string, error) {
	vs, err := versions.Read(filepath.Join(root, "versions.yaml"))
	if err != nil {
		return nil, err
	}
	work, err := readWork(root)
	if err != nil {
		return nil, err
	}
	var problems []string
	used := map[string]bool{}
	for _, u := range work.Use {
		used[path.Clean(filepath.ToSlash(u.Path))] = true
	}
	modDirs, err := goModDirs(root)
	if err != nil {
		return nil, err
	}
	for _, d := range modDirs {
		if !used[d] {
			problems = append(problems, fmt.Sprintf("go.work does not use ./%s: add it with `go work use ./%s`", d, d))
		}
	}

	// required: sibling version → the go.mod files that require it.
	required := map[module.Version][]string{}
	for _, d := range slices.Sorted(maps.Keys(used)) {
		name := path.Join(d, "go.mod")
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			return nil, fmt.Errorf("go.work uses ./%s: %w", d, err)
		}
		mf, err := modfile.Parse(name, data, nil)
		if err != nil {
			return nil, err
		}
		for _, r := range mf.Replace {
			if isSibling(r.Old.Path) {
				problems = append(problems, fmt.Sprintf("%s replaces %s: no go.mod replaces a sibling (it would break `go install …@version`); go.work does that for the workspace", name, r.Old.Path))
			}
		}
		for _, r := range mf.Require {
			if !isSibling(r.Mod.Path) {
				continue
			}
			required[r.Mod] = append(required[r.Mod], name)
			dir := strings.TrimPrefix(r.Mod.Path, versions.Prefix)
			want, ok := vs.Version(dir)
			switch {
			case !ok:
				problems = append(problems, fmt.Sprintf("%s requires %s, which versions.yaml does not list (only released modules can be required)", name, r.Mod.Path))
			case r.Mod.Version != want:
				problems = append(problems, fmt.Sprintf("%s requires %s %s, versions.yaml names %s: require %s (make release moves both)", name, r.Mod.Path, r.Mod.Version, want, want))
			}
		}
	}

	replaced := map[module.Version]bool{}
	for _, r := range work.Replace {
		if !isSibling(r.Old.Path) {
			continue
		}
		dir := strings.TrimPrefix(r.Old.Path, versions.Prefix)
		line := fmt.Sprintf("go.work's `%s %s => %s`", r.Old.Path, r.Old.Version, r.New.Path)
		switch {
		case r.Old.Version == "":
			problems = append(problems, fmt.Sprintf("%s replaces every version: name the version a go.mod requires", line))
			continue
		case r.New.Version != "" || path.Clean(r.New.Path) != dir || !strings.HasPrefix(r.New.Path, "./"):
			problems = append(problems, fmt.Sprintf("%s: replace it with the module's own directory, ./%s", line, dir))
		}
		if want, ok := vs.Version(dir); ok && r.Old.Version != want {
			problems = append(problems, fmt.Sprintf("%s names a version other than versions.yaml's %s", line, want))
		}
		if len(required[r.Old]) == 0 {
			problems = append(problems, fmt.Sprintf("%s replaces a version that no go.mod of the workspace requires: drop it", line))
		}
		replaced[r.Old] = true
	}
	for _, m := range slices.SortedFunc(maps.Keys(required), func(a, b module.Version) int {
		return strings.Compare(a.Path+" "+a.Version, b.Path+" "+b.Version)
	}) {
		if !replaced[m] {
			dir := strings.TrimPrefix(m.Path, versions.Prefix)
			problems = append(problems, fmt.Sprintf("%s require %s %s, which go.work does not replace: add `%s %s => ./%s` to its replace block (a fresh clone would fetch it from the network)",
				strings.Join(required[m], ", "), m.Path, m.Version, m.Path, m.Version, dir))
		}
	}
	return problems, nil
}

func readWork(root string) (*modfile.WorkFile, error) {
	name := filepath.Join(root, "go.work")
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return modfile.ParseWork(name, data, nil)
}

// goModDirs returns the slash-separated directory, relative to root, of
// every go.mod under root ("." for root itself), skipping hidden
// directories (.cache, .git), testdata and node_modules, which the go
// command ignores too.
func goModDirs(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() == "go.mod" {
			rel, err := filepath.Rel(root, filepath.Dir(p))
			if err != nil {
				return err
			}
			dirs = append(dirs, filepath.ToSlash(rel))
		}
		return nil
	})
	return dirs, err
}

func isSibling(p string) bool { return strings.HasPrefix(p, versions.Prefix) }
