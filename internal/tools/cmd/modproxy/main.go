// Command modproxy writes a Go module proxy directory (GOPROXY=file://DIR)
// holding the released modules of this repository at the versions that
// versions.yaml names, and at every older sibling version that a go.mod of the
// repository still requires.
//
// The current version of each module is built from the work tree: the files
// git tracks under the module's directory, as they are on disk (so uncommitted
// edits of tracked files count, untracked files and bin/ never do). An older
// version is built from the git commit that released it: the commit that added
// its "## [X.Y.Z]" heading to the module's CHANGELOG.md (the commit `make
// release` makes and the tag would point to), or else the last commit whose
// versions.yaml still named it. Tags do not travel with main; history does.
//
// Besides the proxy layout (@v/list, .info, .mod, .zip, made with
// golang.org/x/mod/zip), DIR/go.sum lists the go.sum lines (h1: hashes) of
// every module version written, so that a go.sum can be completed for exactly
// these zips (see RELEASING.md).
//
// Usage:
//
//	modproxy -root REPO -out DIR
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	"golang.org/x/mod/sumdb/dirhash"
	"golang.org/x/mod/zip"

	"github.com/adsnap/svc/internal/tools/versions"
)

func main() {
	root := flag.String("root", ".", "repository root (holds versions.yaml)")
	out := flag.String("out", "", "proxy directory to write (required)")
	flag.Parse()
	if *out == "" || flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*root, *out); err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
}

func run(root, out string) error {
	root, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	if out, err = filepath.Abs(out); err != nil {
		return err
	}
	vs, err := versions.Read(filepath.Join(root, "versions.yaml"))
	if err != nil {
		return err
	}
	b := &builder{root: root, out: out, vs: vs, done: map[module.Version]bool{}}
	// Old versions of this repository's modules must not linger in the listing.
	if err := os.RemoveAll(filepath.Join(out, filepath.FromSlash(versions.Prefix))); err != nil {
		return err
	}
	for _, m := range vs.Modules {
		if err := b.add(module.Version{Path: versions.Prefix + m.Dir, Version: m.Version}, ""); err != nil {
			return err
		}
	}
	// Every sibling version required by any go.mod of the tree (e2e and the
	// tools included), so that a module whose requirement lags behind
	// versions.yaml is built against that older version.
	mods, err := gitLines(root, "ls-files", "--", "*go.mod", "go.mod")
	if err != nil {
		return err
	}
	for _, gm := range mods {
		data, err := os.ReadFile(filepath.Join(root, gm))
		if err != nil {
			return err
		}
		if err := b.addRequirements(gm, data); err != nil {
			return err
		}
	}
	return b.writeLists()
}

type builder struct {
	root, out string
	vs        *versions.File
	done      map[module.Version]bool
	sums      []string
}

// add writes module version m; from names the go.mod requiring it, for errors.
func (b *builder) add(m module.Version, from string) error {
	if b.done[m] {
		return nil
	}
	b.done[m] = true
	dir := strings.TrimPrefix(m.Path, versions.Prefix)
	cur, ok := b.vs.Version(dir)
	if !ok {
		return fmt.Errorf("%s requires %s, which versions.yaml does not list", from, m)
	}
	var (
		files   []zip.File
		modData []byte
		when    time.Time
		err     error
	)
	if m.Version == cur {
		files, modData, when, err = b.treeFiles(dir)
	} else {
		var rev string
		if rev, err = b.releaseCommit(dir, m.Version); err != nil {
			return fmt.Errorf("%s requires %s: %w", from, m, err)
		}
		files, modData, when, err = b.commitFiles(rev, dir)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", m, err)
	}
	if err := b.write(m, files, modData, when); err != nil {
		return fmt.Errorf("%s: %w", m, err)
	}
	return b.addRequirements(m.String()+" go.mod", modData)
}

func (b *builder) addRequirements(name string, data []byte) error {
	f, err := modfile.ParseLax(name, data, nil)
	if err != nil {
		return err
	}
	for _, r := range f.Require {
		if strings.HasPrefix(r.Mod.Path, versions.Prefix) {
			if err := b.add(r.Mod, name); err != nil {
				return err
			}
		}
	}
	return nil
}

// treeFiles lists the git-tracked files of dir as they are in the work tree.
func (b *builder) treeFiles(dir string) ([]zip.File, []byte, time.Time, error) {
	names, err := gitLines(b.root, "ls-files", "--", dir+"/")
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	var files []zip.File
	for _, n := range names {
		p := filepath.Join(b.root, filepath.FromSlash(n))
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the work tree, not yet committed
		}
		if err != nil {
			return nil, nil, time.Time{}, err
		}
		if !info.Mode().IsRegular() {
			continue
		}
		files = append(files, diskFile{rel: strings.TrimPrefix(n, dir+"/"), path: p, info: info})
	}
	modData, err := os.ReadFile(filepath.Join(b.root, dir, "go.mod"))
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	when := time.Now().UTC()
	if t, err := gitLines(b.root, "log", "-1", "--format=%cI", "HEAD"); err == nil && len(t) == 1 {
		if ct, err := time.Parse(time.RFC3339, t[0]); err == nil {
			when = ct.UTC()
		}
	}
	return files, modData, when, nil
}

// commitFiles lists the files of dir at commit rev.
func (b *builder) commitFiles(rev, dir string) ([]zip.File, []byte, time.Time, error) {
	names, err := gitLines(b.root, "ls-tree", "-r", "--name-only", rev, "--", dir+"/")
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	var files []zip.File
	for _, n := range names {
		data, err := gitOutput(b.root, "show", rev+":"+n)
		if err != nil {
			return nil, nil, time.Time{}, err
		}
		files = append(files, memFile{rel: strings.TrimPrefix(n, dir+"/"), data: data})
	}
	modData, err := gitOutput(b.root, "show", rev+":"+dir+"/go.mod")
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	t, err := gitLines(b.root, "log", "-1", "--format=%cI", rev)
	if err != nil || len(t) != 1 {
		return nil, nil, time.Time{}, fmt.Errorf("commit time of %s: %v", rev, err)
	}
	when, err := time.Parse(time.RFC3339, t[0])
	return files, modData, when.UTC(), err
}

// releaseCommit finds the commit holding version v of the module in dir: the
// oldest commit adding "## [X.Y.Z]" to its CHANGELOG.md, else the last commit
// whose versions.yaml named v.
func (b *builder) releaseCommit(dir, v string) (string, error) {
	heading := `^## \[` + regexp.QuoteMeta(strings.TrimPrefix(v, "v")) + `\]`
	revs, err := gitLines(b.root, "log", "--reverse", "--format=%H", "-G", heading, "--", dir+"/CHANGELOG.md")
	if err != nil {
		return "", err
	}
	for _, rev := range revs {
		cl, err := gitOutput(b.root, "show", rev+":"+dir+"/CHANGELOG.md")
		if err == nil && regexp.MustCompile(`(?m)`+heading).Match(cl) {
			return rev, nil
		}
	}
	// Newest first: the first commit whose versions.yaml names v is the newest
	// one to name it among those changing the file; the commits after it up to
	// (not including) the next change still named v.
	revs, err = gitLines(b.root, "log", "--format=%H", "--", "versions.yaml")
	if err != nil {
		return "", err
	}
	for i, rev := range revs {
		data, err := gitOutput(b.root, "show", rev+":versions.yaml")
		if err != nil {
			continue
		}
		f, err := versions.Parse(data)
		if err != nil {
			continue
		}
		if got, ok := f.Version(dir); ok && got == v {
			if i == 0 {
				return rev, nil
			}
			return revs[i-1] + "^", nil
		}
	}
	return "", fmt.Errorf("no commit of this repository released it (no %q heading in %s/CHANGELOG.md, no versions.yaml naming it)", "## ["+strings.TrimPrefix(v, "v")+"]", dir)
}

func (b *builder) write(m module.Version, files []zip.File, modData []byte, when time.Time) error {
	esc, err := module.EscapePath(m.Path)
	if err != nil {
		return err
	}
	vdir := filepath.Join(b.out, filepath.FromSlash(esc), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := zip.Create(&buf, m, files); err != nil {
		return err
	}
	zipPath := filepath.Join(vdir, m.Version+".zip")
	if err := os.WriteFile(zipPath, buf.Bytes(), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(vdir, m.Version+".mod"), modData, 0o644); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{m.Version, when})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(vdir, m.Version+".info"), info, 0o644); err != nil {
		return err
	}
	zipSum, err := dirhash.HashZip(zipPath, dirhash.Hash1)
	if err != nil {
		return err
	}
	modSum, err := dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(modData)), nil
	})
	if err != nil {
		return err
	}
	b.sums = append(b.sums,
		fmt.Sprintf("%s %s %s", m.Path, m.Version, zipSum),
		fmt.Sprintf("%s %s/go.mod %s", m.Path, m.Version, modSum))
	return nil
}

// writeLists writes each module's @v/list and DIR/go.sum.
func (b *builder) writeLists() error {
	byPath := map[string][]string{}
	for m := range b.done {
		byPath[m.Path] = append(byPath[m.Path], m.Version)
	}
	for p, vs := range byPath {
		semver.Sort(vs)
		esc, err := module.EscapePath(p)
		if err != nil {
			return err
		}
		list := filepath.Join(b.out, filepath.FromSlash(esc), "@v", "list")
		if err := os.WriteFile(list, []byte(strings.Join(vs, "\n")+"\n"), 0o644); err != nil {
			return err
		}
	}
	sort.Strings(b.sums)
	return os.WriteFile(filepath.Join(b.out, "go.sum"), []byte(strings.Join(b.sums, "\n")+"\n"), 0o644)
}

func gitOutput(root string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

func gitLines(root string, args ...string) ([]string, error) {
	out, err := gitOutput(root, args...)
	if err != nil {
		return nil, err
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	return lines, sc.Err()
}

// diskFile is a work-tree file for zip.Create.
type diskFile struct {
	rel, path string
	info      fs.FileInfo
}

func (f diskFile) Path() string                 { return f.rel }
func (f diskFile) Lstat() (fs.FileInfo, error)  { return f.info, nil }
func (f diskFile) Open() (io.ReadCloser, error) { return os.Open(f.path) }

// memFile is a file read from a git commit, for zip.Create.
type memFile struct {
	rel  string
	data []byte
}

func (f memFile) Path() string                 { return f.rel }
func (f memFile) Lstat() (fs.FileInfo, error)  { return memInfo{f}, nil }
func (f memFile) Open() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(f.data)), nil }

type memInfo struct{ f memFile }

func (i memInfo) Name() string       { return path.Base(i.f.rel) }
func (i memInfo) Size() int64        { return int64(len(i.f.data)) }
func (i memInfo) Mode() fs.FileMode  { return 0o644 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }
