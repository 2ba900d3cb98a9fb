package downloads_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adsnap/svc/api-server/internal/downloads"
)

func TestDownloads(t *testing.T) {
	dir := t.TempDir()
	pkg := []byte("not really a tarball")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "svc-cli-1.0.0-linux-amd64.tgz"), pkg, 0o644))
	must(os.WriteFile(filepath.Join(dir, ".secret"), []byte("hidden"), 0o644))
	must(os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	outside := filepath.Join(t.TempDir(), "outside")
	must(os.WriteFile(outside, []byte("outside"), 0o644))
	must(os.Symlink(outside, filepath.Join(dir, "link")))

	h, err := downloads.New(dir, "https://dl.example", nil)
	must(err)
	e := &env{t: t, h: h}

	sum := sha256.Sum256(pkg)
	want := hex.EncodeToString(sum[:])
	w := e.get("/developers/", "")
	if w.Code != 200 || !strings.Contains(w.Body.String(), want) || !strings.Contains(w.Body.String(), "svc-cli-1.0.0-linux-amd64.tgz") {
		t.Errorf("index: %d %s", w.Code, w.Body.String())
	}
	// No other site may frame the page (issue 30, finding 10).
	if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("index Content-Security-Policy %q, want default-src 'none' and frame-ancestors 'none'", csp)
	}
	for _, hidden := range []string{".secret", "sub", "link"} {
		if strings.Contains(w.Body.String(), ">"+hidden+"<") {
			t.Errorf("index lists %s", hidden)
		}
	}
	if w := e.get("/developers/SHA256SUMS", ""); w.Code != 200 || w.Body.String() != want+"  svc-cli-1.0.0-linux-amd64.tgz\n" {
		t.Errorf("SHA256SUMS: %d %q", w.Code, w.Body.String())
	}
	if w := e.get("/developers/svc-cli-1.0.0-linux-amd64.tgz", ""); w.Code != 200 || w.Body.String() != string(pkg) {
		t.Errorf("file: %d", w.Code)
	}
	for _, p := range []string{"/developers/.secret", "/developers/sub", "/developers/link",
		"/developers/../outside", "/developers/nope"} {
		if w := e.get(p, ""); w.Code != 404 {
			t.Errorf("%s: %d", p, w.Code)
		}
	}
}

// TestDownloadsIndex checks the verify-then-install lines of each way on the
// /developers/ page: for the newest release present, with the configured
// site.
func TestDownloadsIndex(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{
		"SHA256SUMS", "install-svc.sh", "server.json",
		"svc-cli-1.9.0.tgz", "svc-cli-1.9.0-linux-amd64.tgz",
		"svc-cli-1.10.0.tgz", "svc-cli-1.10.0-darwin-arm64.tgz", "svc-cli-1.10.0-linux-amd64.tgz",
		"svc-mcp-1.10.0-darwin-arm64.mcpb", "svc-cli-1.10.0-rc.1.tgz",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ configured, site string }{
		{"https://dl.example/", "https://dl.example"},
		{"http://127.0.0.1:18080", "http://127.0.0.1:18080"}, // the demo's own address
	} {
		h, err := downloads.New(dir, tc.configured, nil)
		if err != nil {
			t.Fatal(err)
		}
		w := (&env{t: t, h: h}).get("/developers/", "")
		page := html.UnescapeString(w.Body.String())
		if w.Code != 200 {
			t.Fatalf("index: %d %s", w.Code, page)
		}
		site := tc.site
		for _, want := range []string{
			"<title>Downloads: svc 1.10.0</title>",
			"curl -fsSL " + site + `/developers/install-svc.sh | sh -s -- --dir "$HOME/.local/bin"`,
			"curl -fsSLO " + site + "/developers/install-svc.sh\ncurl -fsSLO " + site + "/developers/SHA256SUMS\n" +
				`grep " install-svc.sh$" SHA256SUMS | sha256sum -c -` + "\n" + `sh install-svc.sh --dir "$HOME/.local/bin" --version 1.10.0`,
			"curl -fsSLO " + site + "/developers/svc-cli-1.10.0.tgz\ncurl -fsSLO " + site + "/developers/SHA256SUMS\n" +
				`grep " svc-cli-1.10.0.tgz$" SHA256SUMS | sha256sum -c -` + "\nnpm install -g ./svc-cli-1.10.0.tgz",
			"go install github.com/adsnap/svc/svc-cli/cmd/svc@v1.10.0\nexport SVC_SITE_URL=" + site,
			`grep " svc-cli-1.10.0-darwin-arm64.tgz$" SHA256SUMS | sha256sum -c -` + "\ntar -xzf svc-cli-1.10.0-darwin-arm64.tgz svc",
			"curl -fsSLO " + site + "/developers/svc-mcp-1.10.0-darwin-arm64.mcpb",
			`grep " svc-mcp-1.10.0-darwin-arm64.mcpb$" SHA256SUMS | sha256sum -c -`,
			`<a href="server.json">server.json</a>`,
		} {
			if !strings.Contains(page, want) {
				t.Errorf("site %q: index lacks\n%s\n---\n%s", tc.configured, want, page)
			}
		}
		// Every file is listed with its size and SHA-256.
		for _, name := range []string{"svc-cli-1.9.0.tgz", "svc-mcp-1.10.0-darwin-arm64.mcpb", "svc-cli-1.10.0-rc.1.tgz"} {
			sum := sha256.Sum256([]byte(name))
			row := fmt.Sprintf(`<tr><td><a href="%s">%s</a></td><td>%d</td><td><code>%s</code></td></tr>`, name, name, len(name), hex.EncodeToString(sum[:]))
			if !strings.Contains(page, row) {
				t.Errorf("index lacks the row %s", row)
			}
		}
		if strings.Contains(page, "npm install -g ./svc-cli-1.9.0.tgz") || strings.Contains(page, "@v1.10.0-rc.1") {
			t.Errorf("index gives install lines for an older release")
		}
	}
	h, err := downloads.New(dir, "https://dl.example", nil)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, h: h}
	for name, ct := range map[string]string{
		"svc-mcp-1.10.0-darwin-arm64.mcpb": "application/zip", "server.json": "application/json",
		"install-svc.sh": "text/plain; charset=utf-8", "svc-cli-1.10.0.tgz": "application/gzip",
	} {
		if w := e.get("/developers/"+name, ""); w.Code != 200 || w.Header().Get("Content-Type") != ct || w.Body.String() != name {
			t.Errorf("%s: %d %q", name, w.Code, w.Header().Get("Content-Type"))
		}
	}
	// No release at all: the page still lists the files, with no install lines.
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err = downloads.New(empty, "https://dl.example", nil)
	if err != nil {
		t.Fatal(err)
	}
	if w := (&env{t: t, h: h}).get("/developers/", ""); w.Code != 200 || !strings.Contains(w.Body.String(), `href="notes.txt"`) ||
		strings.Contains(w.Body.String(), "npm install") || strings.Contains(w.Body.String(), "go install") {
		t.Errorf("index without a release: %d %s", w.Code, w.Body.String())
	}
}

// TestDownloadsInstallScript checks that the install script is served with
// the configured site as its default, and that SHA256SUMS and the index give
// the hash of what is served: the same bytes whatever the request says its
// host is.
func TestDownloadsInstallScript(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\nset -eu\ndefault_site=https://adsnap.example\necho \"$default_site\"\n"
	archive := "an archive"
	hash := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return hex.EncodeToString(sum[:])
	}
	release := hash(script) + "  install-svc.sh\n" + hash(archive) + "  svc-cli-1.0.0-linux-amd64.tgz\n"
	for name, data := range map[string]string{"install-svc.sh": script, "svc-cli-1.0.0-linux-amd64.tgz": archive, "SHA256SUMS": release} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The served bytes name the configured site, whatever the request says
	// about its host (issue 30, finding 1): a Host header, an absolute-form
	// target, X-Forwarded-Host/-Proto and Forwarded.
	for _, site := range []string{"https://dl.example", "https://adsnap.example", "http://127.0.0.1:18080"} {
		h, err := downloads.New(dir, site, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Replace(script, "default_site=https://adsnap.example", "default_site="+site, 1)
		wantSums := hash(want) + "  install-svc.sh\n" + hash(archive) + "  svc-cli-1.0.0-linux-amd64.tgz\n"
		var page string
		for _, v := range hostileRequests {
			get := func(path string) string {
				t.Helper()
				w := httptest.NewRecorder()
				h.ServeHTTP(w, v.request(path))
				if w.Code != 200 {
					t.Fatalf("%s %s: %d %s", v.name, path, w.Code, w.Body.String())
				}
				return w.Body.String()
			}
			if got := get("/developers/install-svc.sh"); got != want {
				t.Errorf("site %s, %s: script\n%s\nwant\n%s", site, v.name, got, want)
			}
			if sums := get("/developers/SHA256SUMS"); sums != wantSums {
				t.Errorf("site %s, %s: SHA256SUMS\n%s\nwant\n%s", site, v.name, sums, wantSums)
			}
			p := get("/developers/")
			if page == "" {
				page = p
				for _, row := range []string{
					fmt.Sprintf(`<a href="install-svc.sh">install-svc.sh</a></td><td>%d</td><td><code>%s</code>`, len(want), hash(want)),
					fmt.Sprintf(`<a href="SHA256SUMS">SHA256SUMS</a></td><td>%d</td><td><code>%s</code>`, len(wantSums), hash(wantSums)),
					"curl -fsSL " + site + "/developers/install-svc.sh",
				} {
					if !strings.Contains(html.UnescapeString(page), row) {
						t.Errorf("site %s: index lacks %s", site, row)
					}
				}
			} else if p != page {
				t.Errorf("site %s, %s: the index differs from a plain request's", site, v.name)
			}
			if strings.Contains(p, "evil") {
				t.Errorf("site %s, %s: the index names the request's host", site, v.name)
			}
		}
	}
	// No site, or one that cannot go into the script: New refuses.
	for _, site := range []string{"", `https://evil.example";rm -rf /;"`, "https://user@dl.example", "https://dl.example/?x=1", "ftp://dl.example"} {
		if _, err := downloads.New(dir, site, nil); err == nil {
			t.Errorf("New with site %q: no error", site)
		}
	}
}

// hostileRequests are the ways a request names a host other than the
// server's (issue 30, finding 1).
var hostileRequests = []hostileRequest{
	{name: "plain request"},
	{name: "Host header", host: "127.evil.example"},
	{name: "absolute-form target", absolute: "http://127.evil.example"},
	{name: "X-Forwarded-Host", header: map[string]string{"X-Forwarded-Host": "127.evil.example", "X-Forwarded-Proto": "http"}},
	{name: "Forwarded", header: map[string]string{"Forwarded": "host=127.evil.example;proto=http", "X-Forwarded-For": "203.0.113.9"}},
}

type hostileRequest struct {
	name, host, absolute string
	header               map[string]string
}

func (v hostileRequest) request(path string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, v.absolute+path, nil) // an absolute URL sets r.Host, as net/http does
	if v.host != "" {
		r.Host = v.host
	}
	for k, val := range v.header {
		r.Header.Set(k, val)
	}
	return r
}

// env serves requests to one handler, from a client address.
type env struct {
	t *testing.T
	h http.Handler
}

// get is a GET of path (key unused: the site takes no key).
func (e *env) get(path, key string) *httptest.ResponseRecorder {
	e.t.Helper()
	r := httptest.NewRequestWithContext(e.t.Context(), http.MethodGet, path, nil)
	r.RemoteAddr = "192.0.2.10:40000"
	if key != "" {
		r.Header.Set("Authorization", "Bearer "+key)
	}
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	return w
}
