// Package build holds what is stamped into the svc binary at build time: the
// version, the commit, the build date, the built-in site URL and the release
// public key that `svc verify` trusts.
//
// The version is the svc-cli module's version recorded by the go command
// (debug.ReadBuildInfo), so `go install
// github.com/adsnap/svc/svc-cli/cmd/svc@v1.0.0` reports 1.0.0; -ldflags -X
// overrides it for builds from a work tree, where the go command records
// "(devel)" (`make build` stamps the version of versions.yaml).
package build

import (
	"runtime/debug"
	"strings"
)

// DefaultSiteURL is the site svc talks to when neither the build nor
// SVC_SITE_URL names another one.
const DefaultSiteURL = "https://adsnap.example"

// DefaultReleaseKey is the project's release public key (minisign format,
// Ed25519): the key that signs SHA256SUMS of every release, also published
// in the repository's README and RELEASING.md.
const DefaultReleaseKey = "RWQTppskfUqHyVqiJZ6PxIPR2+WC1S8pmchD45QeGBEM0qCGXGP+kgRq"

// Set at build time, for example:
//
//	go build -ldflags "-X github.com/adsnap/svc/svc-cli/internal/build.version=1.0.0 \
//	  -X github.com/adsnap/svc/svc-cli/internal/build.siteURL=https://adsnap.example" ./cmd/svc
var (
	version = ""
	commit  = "unknown"
	date    = "unknown"
	siteURL = DefaultSiteURL
	// releaseKey: scripts/release-cli.sh stamps the key that signed the
	// release (the project's key, or a throwaway one in tests and demos).
	releaseKey = DefaultReleaseKey
)

// modulePath is the module whose version binaryVersion reports.
const modulePath = "github.com/adsnap/svc/svc-cli"

// Version returns the version of svc without its "v" (binaryVersion).
func Version() string { return binaryVersion() }

// binaryVersion returns the version this command reports, without its "v".
// It is the one behaviour of svc-api, svc and keys-admin, written out in each
// module (none of the three depends on a module the other two do), and e2e's
// TestVersionFunctionsAreOne fails when the copies differ:
//
//  1. the -ldflags -X value of version, when set (`make build` and
//     scripts/build-static.sh stamp versions.yaml's);
//  2. else the module version the go command recorded (moduleVersion);
//  3. else "dev": a build from a work tree, which names no version.
//
// The unset value of the variable is "", not "dev", so that no stamped
// value can be taken for "unset"; "dev" is only ever the output.
func binaryVersion() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		if v := moduleVersion(info, modulePath); v != "" {
			return v
		}
	}
	return "dev"
}

// moduleVersion returns the version, without its "v", that info records
// for the module at path: the main module's when the command was built in
// its own module (`go install …@vX.Y.Z`), else the dependency's when another
// module built it (`go build` or `go tool` in a module that requires it,
// which is why the dependencies are searched too). A replaced module reports
// its replacement's version. It returns "" for a work-tree build, which the
// go command records as "(devel)" (a workspace or directory replacement).
func moduleVersion(info *debug.BuildInfo, path string) string {
	m := &info.Main
	if m.Path != path {
		m = nil
		for _, d := range info.Deps {
			if d.Path == path {
				m = d
				break
			}
		}
	}
	if m != nil && m.Replace != nil {
		m = m.Replace
	}
	if m == nil || m.Version == "" || m.Version == "(devel)" {
		return ""
	}
	return strings.TrimPrefix(m.Version, "v")
}

// Commit returns the commit svc was built from, "unknown" when not stamped.
func Commit() string { return commit }

// Date returns the build date (RFC 3339), "unknown" when not stamped.
func Date() string { return date }

// SiteURL returns the built-in site URL. SVC_SITE_URL overrides it at run
// time (see cmdutil.Factory).
func SiteURL() string {
	if siteURL == "" {
		return DefaultSiteURL
	}
	return siteURL
}

// ReleaseKey returns the release public key built in: the key `svc verify`
// checks SHA256SUMS.minisig against.
func ReleaseKey() string {
	if releaseKey == "" {
		return DefaultReleaseKey
	}
	return releaseKey
}
