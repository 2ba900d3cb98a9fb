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

// modulePath is the module whose version Version reports.
const modulePath = "github.com/adsnap/svc/svc-cli"

// Version returns the version of svc without its "v": the -ldflags -X value
// when one is set, else the svc-cli module version from the build
// information, else "dev".
func Version() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	return moduleVersion(info)
}

// moduleVersion returns the version of the svc-cli module in info: the main
// module's when svc is built within svc-cli (go install …@version, go build
// in a module), or the dependency's when another module builds the command.
func moduleVersion(info *debug.BuildInfo) string {
	m := &info.Main
	if m.Path != modulePath {
		m = nil
		for _, d := range info.Deps {
			if d.Path == modulePath {
				m = d
				break
			}
		}
	}
	if m == nil || m.Version == "" || m.Version == "(devel)" {
		return "dev"
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
