package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/server"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
)

// newSQLiteConfig is a Config over a migrated SQLite database.
func newSQLiteConfig(t *testing.T) server.Config {
	t.Helper()
	b := dbtest.SQLite(t)
	if err := testenv.Migrate(t.Context(), b.DB); err != nil {
		t.Fatal(err)
	}
	st, err := store.New(t.Context(), b.Handle)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ks := keys.NewAuthenticator(b.Handle, keys.AuthenticatorOptions{})
	return server.Config{Keys: ks, Store: st, Limiter: ratelimit.NewMemory(nil)}
}

// TestDevelopersMounted checks that the server mounts the /developers/ site
// (package downloads, tested there) behind its own pipeline: the headers of
// every response, the screen's 400 for an encoded path, the 404 of a path
// the site does not hold, and New's refusal of a directory without a site.
func TestDevelopersMounted(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "svc-cli-1.0.0-linux-amd64.tgz"), []byte("pkg"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := newSQLiteConfig(t)
	cfg.DownloadsDir, cfg.DownloadsSiteURL = dir, "https://dl.example"
	h, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, h: h}
	for _, p := range []string{"/developers/", "/developers/svc-cli-1.0.0-linux-amd64.tgz", "/developers/SHA256SUMS"} {
		w := e.get(p, "")
		if w.Code != 200 || w.Header().Get("Cache-Control") != "no-store" || w.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: %d %v", p, w.Code, w.Header())
		}
	}
	// A percent-encoded path is refused on every path alike (issue #22 point 9).
	if w := e.get("/developers/..%2Foutside", ""); w.Code != 400 {
		t.Errorf("/developers/..%%2Foutside: %d", w.Code)
	}
	for _, p := range []string{"/developers/nope", "/developers/../outside", "/developers/a/b"} {
		if w := e.get(p, ""); w.Code != 404 || !strings.Contains(w.Body.String(), `"statusCode":404`) {
			t.Errorf("%s: %d %s", p, w.Code, w.Body.String())
		}
	}
	cfg.DownloadsSiteURL = ""
	if _, err := server.New(cfg); err == nil {
		t.Error("New with DownloadsDir and no DownloadsSiteURL: no error")
	}
	// Without a directory, /developers/ is no route.
	cfg.DownloadsDir = ""
	h, err = server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if w := (&env{t: t, h: h}).get("/developers/", ""); w.Code != 404 {
		t.Errorf("/developers/ without a directory: %d", w.Code)
	}
}

func TestHSTS(t *testing.T) {
	cfg := newSQLiteConfig(t)
	cfg.HSTS = true
	h, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, h: h}
	for _, p := range []string{"/healthz", server.BasePath + "/accounts", "/nope"} {
		if got := e.get(p, "").Header().Get("Strict-Transport-Security"); !strings.HasPrefix(got, "max-age=") {
			t.Errorf("%s: HSTS %q", p, got)
		}
	}
}
