// Package versions reads and updates versions.yaml, the file at the root of
// the repository that names each released module's current version.
package versions

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"sort"

	"golang.org/x/mod/semver"
	"gopkg.in/yaml.v3"
)

// Prefix is the module path of every module of the repository, less its
// directory.
const Prefix = "github.com/adsnap/svc/"

// Module is one released module: its directory and current version.
type Module struct {
	Dir     string
	Version string
}

// File is a parsed versions.yaml.
type File struct {
	Modules []Module // sorted by Dir
	data    []byte
}

// Read parses the versions.yaml at path.
func Read(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Parse parses the content of a versions.yaml.
func Parse(data []byte) (*File, error) {
	var doc struct {
		Modules map[string]string `yaml:"modules"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Modules) == 0 {
		return nil, fmt.Errorf("no modules listed")
	}
	f := &File{data: data}
	for dir, v := range doc.Modules {
		if !semver.IsValid(v) || semver.Canonical(v) != v || semver.Prerelease(v) != "" {
			return nil, fmt.Errorf("module %s: version %q is not of the form vX.Y.Z", dir, v)
		}
		if !lineRE(dir).Match(data) {
			return nil, fmt.Errorf("module %s: write it on one line, %q", dir, "  "+dir+": "+v)
		}
		f.Modules = append(f.Modules, Module{Dir: dir, Version: v})
	}
	sort.Slice(f.Modules, func(i, j int) bool { return f.Modules[i].Dir < f.Modules[j].Dir })
	return f, nil
}

// Version returns the version of the module in dir.
func (f *File) Version(dir string) (string, bool) {
	for _, m := range f.Modules {
		if m.Dir == dir {
			return m.Version, true
		}
	}
	return "", false
}

// Set returns the file's content with the module in dir at version v, every
// other byte (comments included) unchanged.
func (f *File) Set(dir, v string) ([]byte, error) {
	if _, ok := f.Version(dir); !ok {
		return nil, fmt.Errorf("versions.yaml does not list module %s", dir)
	}
	re := lineRE(dir)
	return re.ReplaceAll(bytes.Clone(f.data), []byte("${1}"+v)), nil
}

func lineRE(dir string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^(  ` + regexp.QuoteMeta(dir) + `: )v[0-9.]+$`)
}
