package main

import (
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/adsnap/svc/internal/tools/versions"
)

// The in-toto and SLSA type URIs of the statement.
const (
	statementType  = "https://in-toto.io/Statement/v1"
	provenanceType = "https://slsa.dev/provenance/v1"
	// buildType names this build and how to read its parameters: RELEASING.md
	// describes them.
	buildType = "https://github.com/adsnap/svc/blob/main/RELEASING.md#provenance"
	// builderID is the build platform: scripts/release-cli.sh on the release
	// manager's machine (SLSA Build L1: the provenance exists and is covered
	// by the signature of SHA256SUMS; no hosted builder signs it apart).
	builderID = "https://github.com/adsnap/svc/blob/main/scripts/release-cli.sh"
	repoURI   = "git+https://github.com/adsnap/svc"
)

// Statement is an in-toto Statement v1.
type Statement struct {
	Type          string     `json:"_type"`
	Subject       []Resource `json:"subject"`
	PredicateType string     `json:"predicateType"`
	Predicate     Provenance `json:"predicate"`
}

// Resource is an in-toto ResourceDescriptor.
type Resource struct {
	Name   string            `json:"name,omitempty"`
	URI    string            `json:"uri,omitempty"`
	Digest map[string]string `json:"digest"`
}

// Provenance is the SLSA provenance v1 predicate. runDetails.metadata
// (invocation ID, start and end times) is left out on purpose: the statement
// must be the same bytes on every run of the same release.
type Provenance struct {
	BuildDefinition struct {
		BuildType            string             `json:"buildType"`
		ExternalParameters   ExternalParameters `json:"externalParameters"`
		InternalParameters   InternalParameters `json:"internalParameters"`
		ResolvedDependencies []Resource         `json:"resolvedDependencies"`
	} `json:"buildDefinition"`
	RunDetails struct {
		Builder struct {
			ID string `json:"id"`
		} `json:"builder"`
	} `json:"runDetails"`
}

// ExternalParameters are the inputs the release manager chose.
type ExternalParameters struct {
	Source       Resource          `json:"source"`
	Version      string            `json:"version"`
	SiteURL      string            `json:"siteUrl"`
	Platforms    []string          `json:"platforms"`
	BuildCommand string            `json:"buildCommand"`
	VersionsYAML map[string]string `json:"versionsYaml"`
}

// InternalParameters are fixed by the build itself.
type InternalParameters struct {
	GoVersion       string `json:"goVersion"`
	GoInstall       string `json:"goInstall"`
	SourceDateEpoch int64  `json:"sourceDateEpoch"`
	// WorkTreeClean is false when tracked files differed from the commit:
	// the modules are built from the work tree (make proxy), so the commit
	// alone then does not describe the source; the module digests do.
	WorkTreeClean bool `json:"workTreeClean"`
}

type provenanceFlags struct {
	out, version, commit, site, platforms, buildCommand, goInstall, versionsFile string
	epoch                                                                        int64
	clean                                                                        bool
	binaries                                                                     []string
}

func provenanceCmd(args []string) error {
	var p provenanceFlags
	fs := flag.NewFlagSet("provenance", flag.ContinueOnError)
	fs.StringVar(&p.out, "out", "", "statement file to write")
	fs.StringVar(&p.version, "version", "", "svc-cli version released")
	fs.StringVar(&p.commit, "commit", "", "source commit (40 hex digits)")
	fs.StringVar(&p.site, "site", "", "site URL built in")
	fs.StringVar(&p.platforms, "platforms", "", "os/arch list, space-separated")
	fs.StringVar(&p.buildCommand, "build-command", "", "the command that made the release")
	fs.StringVar(&p.goInstall, "go-install", "", "the go command that built each binary")
	fs.StringVar(&p.versionsFile, "versions", "", "versions.yaml")
	fs.Int64Var(&p.epoch, "source-date-epoch", 0, "SOURCE_DATE_EPOCH of the build")
	fs.BoolVar(&p.clean, "clean", false, "the work tree matched the commit")
	fs.Func("binary", "a built binary whose modules are resolved dependencies (repeatable)", func(s string) error {
		p.binaries = append(p.binaries, s)
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if p.out == "" || p.version == "" || len(p.commit) != 40 || p.versionsFile == "" || len(p.binaries) == 0 || fs.NArg() == 0 {
		return usageError{"usage: releasetool provenance -out FILE -version V -commit SHA -versions versions.yaml -binary BIN... [flags] ARTIFACT..."}
	}
	st, err := provenance(p, fs.Args())
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(p.out, append(data, '\n'), 0o644)
}

// provenance builds the statement: every artifact by name and SHA-256; the
// commit, versions.yaml (its digest and its versions), the Go version and
// the commands; every module linked into the binaries with its go.sum hash.
func provenance(p provenanceFlags, artifacts []string) (*Statement, error) {
	st := &Statement{Type: statementType, PredicateType: provenanceType}
	for _, a := range artifacts {
		sum, err := fileSHA256(a)
		if err != nil {
			return nil, err
		}
		st.Subject = append(st.Subject, Resource{Name: filepath.Base(a), Digest: map[string]string{"sha256": sum}})
	}
	slices.SortFunc(st.Subject, func(a, b Resource) int { return strings.Compare(a.Name, b.Name) })

	vs, err := versions.Read(p.versionsFile)
	if err != nil {
		return nil, err
	}
	vsSum, err := fileSHA256(p.versionsFile)
	if err != nil {
		return nil, err
	}
	bd := &st.Predicate.BuildDefinition
	bd.BuildType = buildType
	source := Resource{URI: repoURI, Digest: map[string]string{"gitCommit": p.commit}}
	bd.ExternalParameters = ExternalParameters{
		Source: source, Version: p.version, SiteURL: p.site, Platforms: strings.Fields(p.platforms),
		BuildCommand: p.buildCommand, VersionsYAML: map[string]string{},
	}
	for _, m := range vs.Modules {
		bd.ExternalParameters.VersionsYAML[m.Dir] = m.Version
	}
	bd.ResolvedDependencies = []Resource{
		{URI: repoURI + "@" + p.commit, Digest: map[string]string{"gitCommit": p.commit}},
		{Name: "versions.yaml", URI: repoURI + "@" + p.commit + "#versions.yaml", Digest: map[string]string{"sha256": vsSum}},
	}
	mods, goVersion, err := linkedModules(p.binaries)
	if err != nil {
		return nil, err
	}
	bd.ResolvedDependencies = append(bd.ResolvedDependencies, mods...)
	bd.InternalParameters = InternalParameters{GoVersion: goVersion, GoInstall: p.goInstall, SourceDateEpoch: p.epoch, WorkTreeClean: p.clean}
	st.Predicate.RunDetails.Builder.ID = builderID
	return st, nil
}

// linkedModules returns every module linked into the binaries (the main
// module included), once each, sorted, and the Go version that built them,
// which must be the same for all.
func linkedModules(binaries []string) ([]Resource, string, error) {
	var mods []*debug.Module
	goVersion := ""
	for _, b := range binaries {
		info, err := buildinfo.ReadFile(b)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", b, err)
		}
		if goVersion != "" && info.GoVersion != goVersion {
			return nil, "", fmt.Errorf("%s was built with %s, another binary with %s", b, info.GoVersion, goVersion)
		}
		goVersion = info.GoVersion
		mods = append(append(mods, &info.Main), info.Deps...)
	}
	res, err := moduleResources(mods)
	return res, goVersion, err
}

// moduleResources describes modules as pkg:golang URIs with their go.sum
// hash as an in-toto dirHash (hex, without "h1:"), once each, sorted. A
// replaced module or one without a hash cannot be in a release.
func moduleResources(mods []*debug.Module) ([]Resource, error) {
	seen := map[string]Resource{}
	for _, m := range mods {
		if m.Replace != nil {
			return nil, fmt.Errorf("module %s is replaced: a release is built from released versions only", m.Path)
		}
		if m.Sum == "" {
			return nil, fmt.Errorf("module %s@%s has no go.sum hash in the build information", m.Path, m.Version)
		}
		h, err := dirHash(m.Sum)
		if err != nil {
			return nil, fmt.Errorf("module %s: %w", m.Path, err)
		}
		uri := "pkg:golang/" + m.Path + "@" + m.Version
		seen[uri] = Resource{URI: uri, Digest: map[string]string{"dirHash": h}}
	}
	var out []Resource
	for _, r := range seen {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Resource) int { return strings.Compare(a.URI, b.URI) })
	return out, nil
}

// dirHash converts a go.sum "h1:" hash (base64) to the in-toto dirHash
// digest (lowercase hex, no prefix).
func dirHash(h1 string) (string, error) {
	b64, ok := strings.CutPrefix(h1, "h1:")
	if !ok {
		return "", fmt.Errorf("hash %q is not h1", h1)
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(raw) != sha256.Size {
		return "", errors.New("malformed h1 hash " + h1)
	}
	return hex.EncodeToString(raw), nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
