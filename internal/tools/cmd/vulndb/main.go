// Command vulndb builds a local Go vulnerability database for govulncheck
// (-db file://DIR) from the golang.org/x/vulndb module as the module proxy
// serves it: the public database host cannot be reached from the machines of
// this project, the module proxy can, and the module holds every report as an
// OSV file (data/osv/GO-*.json).
//
// DIR gets the layout of https://go.dev/security/vuln/database#api:
// index/db.json, index/modules.json, index/vulns.json and ID/<id>.json. The
// OSV files of the module carry no modification time (the generator takes it
// from git history, which a module zip has not), so the database's
// "modified" is the time of the vulndb commit that the pseudo-version names:
// govulncheck prints it as the database's last modification.
//
// Hand-written: vulndb's own indexer (golang.org/x/vulndb/cmd/indexdb) links
// go-git and Google Cloud clients, and govulncheck's reading of a bare
// directory of OSV files is undocumented; the three index files are small.
//
// Usage:
//
//	vulndb -version v0.0.0-20261105234957-e22db6528018 -out DIR
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/module"
)

const modulePath = "golang.org/x/vulndb"

func main() {
	version := flag.String("version", "", "version of "+modulePath+" (a pseudo-version: the snapshot)")
	out := flag.String("out", "", "directory to write the database to (replaced)")
	flag.Parse()
	if *version == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: vulndb -version VERSION -out DIR")
		os.Exit(2)
	}
	if err := run(*version, *out); err != nil {
		fmt.Fprintln(os.Stderr, "vulndb:", err)
		os.Exit(1)
	}
}

func run(version, out string) error {
	at, err := module.PseudoVersionTime(version)
	if err != nil {
		return fmt.Errorf("%s@%s: want a pseudo-version (the commit is the snapshot): %w", modulePath, version, err)
	}
	rev, _ := module.PseudoVersionRev(version)
	dir, err := download(version)
	if err != nil {
		return err
	}
	n, mods, err := build(filepath.Join(dir, "data", "osv"), out, at)
	if err != nil {
		return err
	}
	fmt.Printf("vulnerability database: %s@%s (commit %s of %s), %d entries over %d modules, built into %s\n",
		modulePath, version, rev, at.UTC().Format(time.RFC3339), n, mods, out)
	return nil
}

// download fetches the module through the module proxy (GOPROXY) into the
// module cache, its checksum checked as for any module, and returns its
// directory there.
func download(version string) (string, error) {
	tmp, err := os.MkdirTemp("", "vulndb")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	// Outside any module (a directory of its own, no workspace), so that
	// no go.mod or go.sum is touched.
	cmd := exec.Command("go", "mod", "download", "-json", modulePath+"@"+version)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(b, &info); jerr == nil && info.Error != "" {
		return "", fmt.Errorf("go mod download %s@%s: %s", modulePath, version, info.Error)
	}
	if err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %w\n%s", modulePath, version, err, stderr.Bytes())
	}
	if info.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s: no directory in %s", modulePath, version, b)
	}
	return info.Dir, nil
}

// entry is the part of an OSV entry the indexes need.
type entry struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
	Aliases  []string  `json:"aliases,omitempty"`
	Affected []struct {
		Module struct {
			Path string `json:"name"`
		} `json:"package"`
	} `json:"affected"`
}

type vulnMeta struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
	Aliases  []string  `json:"aliases,omitempty"`
}

// moduleVuln leaves out "fixed": govulncheck reads it only to skip entries
// early, and reads every entry listed without it.
type moduleVuln struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
}

type moduleMeta struct {
	Path  string       `json:"path"`
	Vulns []moduleVuln `json:"vulns"`
}

// build writes the database of the OSV files in src to out and returns the
// number of entries and of modules.
func build(src, out string, at time.Time) (int, int, error) {
	files, err := filepath.Glob(filepath.Join(src, "*.json"))
	if err != nil || len(files) == 0 {
		return 0, 0, fmt.Errorf("no OSV files in %s (%v)", src, err)
	}
	tmp := out + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return 0, 0, err
	}
	if err := os.MkdirAll(filepath.Join(tmp, "ID"), 0o755); err != nil {
		return 0, 0, err
	}
	if err := os.MkdirAll(filepath.Join(tmp, "index"), 0o755); err != nil {
		return 0, 0, err
	}
	var vulns []vulnMeta
	mods := map[string]*moduleMeta{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return 0, 0, err
		}
		var e entry
		if err := json.Unmarshal(b, &e); err != nil {
			return 0, 0, fmt.Errorf("%s: %w", f, err)
		}
		if e.ID == "" || filepath.Base(f) != e.ID+".json" {
			return 0, 0, fmt.Errorf("%s: the file of entry %q", f, e.ID)
		}
		if e.Modified.IsZero() {
			e.Modified = at
		}
		vulns = append(vulns, vulnMeta{ID: e.ID, Modified: e.Modified, Aliases: e.Aliases})
		for _, a := range e.Affected {
			m := mods[a.Module.Path]
			if m == nil {
				m = &moduleMeta{Path: a.Module.Path, Vulns: []moduleVuln{}}
				mods[a.Module.Path] = m
			}
			if !slices.ContainsFunc(m.Vulns, func(v moduleVuln) bool { return v.ID == e.ID }) {
				m.Vulns = append(m.Vulns, moduleVuln{ID: e.ID, Modified: e.Modified})
			}
		}
		if err := os.WriteFile(filepath.Join(tmp, "ID", e.ID+".json"), b, 0o644); err != nil {
			return 0, 0, err
		}
	}
	var modules []*moduleMeta
	for _, m := range mods {
		modules = append(modules, m)
	}
	slices.SortFunc(modules, func(a, b *moduleMeta) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(vulns, func(a, b vulnMeta) int { return strings.Compare(a.ID, b.ID) })
	for name, v := range map[string]any{
		"db.json":      map[string]time.Time{"modified": at.UTC()},
		"modules.json": modules,
		"vulns.json":   vulns,
	} {
		b, err := json.Marshal(v)
		if err != nil {
			return 0, 0, err
		}
		if err := os.WriteFile(filepath.Join(tmp, "index", name), b, 0o644); err != nil {
			return 0, 0, err
		}
	}
	if err := os.RemoveAll(out); err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, 0, err
	}
	return len(vulns), len(modules), os.Rename(tmp, out)
}
