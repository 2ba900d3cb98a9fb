// Package build holds what is stamped into the svc binary at build time with
// -ldflags -X: the version, the commit, the build date and the built-in site
// URL.
package build

// DefaultSiteURL is the site svc talks to when neither the build nor
// SVC_SITE_URL names another one.
const DefaultSiteURL = "https://adsnap.example"

// Set at build time, for example:
//
//	go build -ldflags "-X github.com/adsnap/svc/svc-cli/internal/build.version=1.0.0 \
//	  -X github.com/adsnap/svc/svc-cli/internal/build.siteURL=https://adsnap.example" ./cmd/svc
var (
	version = "dev"
	commit  = "unknown"
	date    = "unknown"
	siteURL = DefaultSiteURL
)

// Version returns the version of svc, "dev" when not stamped.
func Version() string { return version }

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
