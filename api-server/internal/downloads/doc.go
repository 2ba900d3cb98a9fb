// Package downloads is the /developers/ site: a release directory served as
// an http.Handler (New), naming only the site it is configured with, never
// one taken from a request. The server mounts it under Prefix.
//
// Its files hold:
//   - site.go: New, the handler (Site.ServeHTTP) and the error body;
//   - downloads.go: the files served (plain names only, no dotfile, no
//     link), their SHA-256 (cached by size and time), SHA256SUMS as served
//     and the install script with the configured site as its default;
//   - index.go: the index page (a template: the install lines of the newest
//     release, and every file with its size and SHA-256);
//   - verify.go: the verification recipes of a signed release (minisign
//     key, SBOM, provenance).
package downloads
