package downloads_test

import (
	"crypto/sha256"
	"encoding/hex"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adsnap/svc/api-server/internal/downloads"
)

// TestDownloadsSignedRelease: a release with SHA256SUMS.minisig is served
// byte for byte as it was signed, whatever the configured site or the
// request's Host (a rewritten install script would no longer match the
// signed SHA256SUMS), and the index shows how to verify each of its files
// with the release public key named by its install script.
func TestDownloadsSignedRelease(t *testing.T) {
	const key = "RWQTppskfUqHyVqiJZ6PxIPR2+WC1S8pmchD45QeGBEM0qCGXGP+kgRq"
	dir := t.TempDir()
	script := "#!/bin/sh\nset -eu\ndefault_site=https://adsnap.example\nrelease_public_key=" + key + "\n"
	hash := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return hex.EncodeToString(sum[:])
	}
	files := map[string]string{
		"install-svc.sh":                     script,
		"svc-cli-1.0.0-linux-amd64.tgz":      "an archive",
		"svc-cli-1.0.0-linux-amd64.cdx.json": `{"bomFormat":"CycloneDX"}`,
		"svc-cli-1.0.0.intoto.json":          `{"_type":"https://in-toto.io/Statement/v1"}`,
		"svc-mcp-1.0.0-linux-amd64.mcpb":     "a bundle",
	}
	var sums strings.Builder
	for _, name := range []string{"install-svc.sh", "svc-cli-1.0.0-linux-amd64.cdx.json", "svc-cli-1.0.0-linux-amd64.tgz", "svc-cli-1.0.0.intoto.json", "svc-mcp-1.0.0-linux-amd64.mcpb"} {
		sums.WriteString(hash(files[name]) + "  " + name + "\n")
	}
	files["SHA256SUMS"] = sums.String()
	files["SHA256SUMS.minisig"] = "untrusted comment: signature\nRUQ...\ntrusted comment: t\nxyz\n"
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ configured, host, site string }{
		{"https://dl.example", "", "https://dl.example"},
		// A request's Host never names the site (issue 30).
		{"http://127.0.0.1:18080", "127.evil.example", "http://127.0.0.1:18080"},
	} {
		h, err := downloads.New(dir, tc.configured, nil)
		if err != nil {
			t.Fatal(err)
		}
		get := func(path string) string {
			t.Helper()
			r := httptest.NewRequest(http.MethodGet, path, nil)
			if tc.host != "" {
				r.Host = tc.host
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != 200 {
				t.Fatalf("%s: %d %s", path, w.Code, w.Body.String())
			}
			return w.Body.String()
		}
		for _, name := range []string{"install-svc.sh", "SHA256SUMS", "SHA256SUMS.minisig", "svc-cli-1.0.0.intoto.json"} {
			if got := get("/developers/" + name); got != files[name] {
				t.Errorf("site %q host %q: %s served as\n%s\nwant the signed file\n%s", tc.configured, tc.host, name, got, files[name])
			}
		}
		page := html.UnescapeString(get("/developers/"))
		site := tc.site
		for _, want := range []string{
			`<h2 id="verify">Verify the release</h2>`,
			"The release public key is <code>" + key + "</code>",
			"curl -fsSLO " + site + "/developers/SHA256SUMS\ncurl -fsSLO " + site + "/developers/SHA256SUMS.minisig\nminisign -Vm SHA256SUMS -P " + key,
			"<code>svc verify FILE…</code>",
			`<a href="svc-cli-1.0.0-linux-amd64.cdx.json">svc-cli-1.0.0-linux-amd64.cdx.json</a></td><td>CycloneDX SBOM`,
			`<code>grep " svc-cli-1.0.0-linux-amd64.cdx.json$" SHA256SUMS | sha256sum -c -</code>`,
			`<a href="svc-cli-1.0.0.intoto.json">svc-cli-1.0.0.intoto.json</a></td><td>provenance: an in-toto statement (SLSA provenance v1)`,
			`jq -r '.subject[] | "\(.digest.sha256)  \(.name)"' svc-cli-1.0.0.intoto.json | sha256sum -c --ignore-missing -`,
			"<code>mcpb verify FILE</code>",
			// Each recipe checks the signature before the file's line.
			"curl -fsSLO " + site + "/developers/install-svc.sh\ncurl -fsSLO " + site + "/developers/SHA256SUMS\ncurl -fsSLO " + site +
				"/developers/SHA256SUMS.minisig\nminisign -Vm SHA256SUMS -P " + key + "\n" + `grep " install-svc.sh$" SHA256SUMS | sha256sum -c -`,
			"checks the signature of <code>SHA256SUMS</code> and checks the archive's SHA-256",
			// The script installs from the release's site unless told: the
			// lines name the serving site.
			"curl -fsSL " + site + `/developers/install-svc.sh | sh -s -- --dir "$HOME/.local/bin" ` + site + "</code>",
			`sh install-svc.sh --dir "$HOME/.local/bin" --version 1.0.0 ` + site + "</code>",
			`<a href="SHA256SUMS.minisig">SHA256SUMS.minisig</a></td><td>`,
		} {
			if !strings.Contains(page, want) {
				t.Errorf("site %q: index lacks\n%s\n---\n%s", tc.configured, want, page)
			}
		}
		if strings.Contains(page, "not a signature") {
			t.Errorf("the index of a signed release says the check is not a signature")
		}
	}

	// Unsigned: no Verify section, the old wording.
	unsigned := t.TempDir()
	if err := os.WriteFile(filepath.Join(unsigned, "svc-cli-1.0.0-linux-amd64.tgz"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := downloads.New(unsigned, "https://dl.example", nil)
	if err != nil {
		t.Fatal(err)
	}
	w := (&env{t: t, h: h}).get("/developers/", "")
	if w.Code != 200 || strings.Contains(w.Body.String(), `id="verify"`) || !strings.Contains(w.Body.String(), "not a signature") {
		t.Errorf("unsigned index: %d %s", w.Code, w.Body.String())
	}
}
