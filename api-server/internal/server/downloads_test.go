package server_test

import (
	"crypto/sha256"
	"encoding/hex"
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

	b := dbtest.SQLite(t)
	must(testenv.Migrate(t.Context(), b.DB))
	st, err := store.New(t.Context(), b.DB)
	must(err)
	defer st.Close()
	ks := keys.New(b.DB)
	defer ks.Close()
	h, err := server.New(server.Config{Keys: ks, Store: st, Limiter: ratelimit.NewMemory(nil), DownloadsDir: dir})
	must(err)
	e := &env{t: t, h: h}

	sum := sha256.Sum256(pkg)
	want := hex.EncodeToString(sum[:])
	w := e.get("/developers/", "")
	if w.Code != 200 || !strings.Contains(w.Body.String(), want) || !strings.Contains(w.Body.String(), "svc-cli-1.0.0-linux-amd64.tgz") {
		t.Errorf("index: %d %s", w.Code, w.Body.String())
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
	// A percent-encoded path is refused on every path alike (issue #22 point 9).
	if w := e.get("/developers/..%2Foutside", ""); w.Code != 400 {
		t.Errorf("/developers/..%%2Foutside: %d", w.Code)
	}
}

func TestHSTS(t *testing.T) {
	b := dbtest.SQLite(t)
	if err := testenv.Migrate(t.Context(), b.DB); err != nil {
		t.Fatal(err)
	}
	st, err := store.New(t.Context(), b.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ks := keys.New(b.DB)
	defer ks.Close()
	h, err := server.New(server.Config{Keys: ks, Store: st, Limiter: ratelimit.NewMemory(nil), HSTS: true})
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
