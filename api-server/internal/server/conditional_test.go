package server_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/klauspost/compress/zstd"
)

// TestConditional (DESIGN §4c): a 200 carries a weak tag and
// Cache-Control: private, no-cache; the tag re-sent answers 304 without a
// body (HEAD too); two keys of one organization share tags, another
// organization's request never matches (200 with its own tag, or 404 for
// an account not its own); a version advanced for one account
// changes the pages that cover it and no other; a revoked key gets 401
// with a valid tag; errors stay no-store and untagged.
func TestConditional(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		e := newEnv(t, b, opts{})
		ctx := t.Context()
		paths := []string{"/accounts", "/campaigns", "/insights?limit=3", "/insights?limit=2&offset=4",
			"/insights?accountId=acc_a1", "/insights?accountId=acc_a2", "/insights/summary?level=account&groupBy=day"}
		tags := map[string]string{}
		for _, p := range paths {
			w := e.get(base+p, e.all)
			tag := w.Header().Get("ETag")
			if w.Code != 200 || !strings.HasPrefix(tag, `W/"`) || w.Header().Get("Cache-Control") != "private, no-cache" {
				t.Fatalf("%s: %d, ETag %q, Cache-Control %q", p, w.Code, tag, w.Header().Get("Cache-Control"))
			}
			tags[p] = tag
			for _, m := range []string{http.MethodGet, http.MethodHead} {
				w = e.do(req{method: m, path: base + p, key: e.admin, header: map[string]string{"If-None-Match": `"x", ` + tag}})
				if w.Code != http.StatusNotModified || w.Body.Len() != 0 || w.Header().Get("ETag") != tag {
					t.Errorf("%s %s with its tag, another key of the organization: %d, %d bytes, ETag %q", m, p, w.Code, w.Body.Len(), w.Header().Get("ETag"))
				}
			}
			if w := e.do(req{path: base + p, key: e.b, header: map[string]string{"If-None-Match": tag}}); w.Code == http.StatusNotModified || w.Header().Get("ETag") == tag {
				t.Errorf("%s: org_b's request with org_a's tag: %d, ETag %q", p, w.Code, w.Header().Get("ETag"))
			}
		}
		// acc_a2's version of today advances, as an import that changes one
		// of its rows of today does.
		today := time.Now().UTC().Format(time.DateOnly)
		if _, err := e.db.ExecContext(ctx, `INSERT INTO insight_day_versions (organization_id, account_id, date, version)
			VALUES ('org_a', 'acc_a2', ?, 1) ON CONFLICT (organization_id, account_id, date)
			DO UPDATE SET version = insight_day_versions.version + 1`, today); err != nil {
			t.Fatal(err)
		}
		// and its import record, which the import writes with it (the
		// tag material is kept by the newest one: store/tagcache.go).
		if _, err := e.db.ExecContext(ctx, `INSERT INTO insight_imports (organization_id, committed_at, upserts, deletes, changed_days)
			VALUES ('org_a', ?, 1, 0, '[]')`, today); err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			w := e.do(req{path: base + p, key: e.all, header: map[string]string{"If-None-Match": tags[p]}})
			changed := p == "/insights?limit=3" || p == "/insights?accountId=acc_a2" || strings.Contains(p, "summary")
			switch {
			case changed && (w.Code != 200 || w.Header().Get("ETag") == tags[p]):
				t.Errorf("%s after acc_a2's today changed: %d, ETag %q (was %q)", p, w.Code, w.Header().Get("ETag"), tags[p])
			case !changed && w.Code != http.StatusNotModified:
				t.Errorf("%s after acc_a2's today changed: %d, want 304", p, w.Code)
			}
		}
		// Errors: no tag, no-store, even with If-None-Match: *.
		w := e.do(req{path: base + "/insights?accountId=acc_b1", key: e.all, header: map[string]string{"If-None-Match": "*"}})
		if w.Code != 404 || w.Header().Get("ETag") != "" || w.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("another organization's account: %d, ETag %q, Cache-Control %q", w.Code, w.Header().Get("ETag"), w.Header().Get("Cache-Control"))
		}
		if _, err := e.keys.Revoke(ctx, "org_a", testenv.AdminA, e.allID); err != nil {
			t.Fatal(err)
		}
		w = e.do(req{path: base + "/accounts", key: e.all, header: map[string]string{"If-None-Match": tags["/accounts"]}})
		if w.Code != http.StatusUnauthorized || w.Header().Get("ETag") != "" || w.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("revoked key with a valid tag: %d, ETag %q", w.Code, w.Header().Get("ETag"))
		}
	})
}

// TestCompression: zstd (preferred) and gzip bodies decode to exactly the
// identity body, with Vary: Accept-Encoding and the same weak tag; a body
// under 1 KiB, a HEAD answer and a 304 are not compressed.
func TestCompression(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		now := time.Now() // one generatedAt for every answer
		e := newEnv(t, b, opts{now: func() time.Time { return now }})
		const p = base + "/insights?limit=100"
		id := e.get(p, e.all)
		if id.Code != 200 || id.Body.Len() < 1024 || id.Header().Get("Content-Encoding") != "" {
			t.Fatalf("identity: %d, %d bytes, %q", id.Code, id.Body.Len(), id.Header().Get("Content-Encoding"))
		}
		for _, c := range []struct{ accept, want string }{{"gzip, zstd", "zstd"}, {"gzip", "gzip"}, {"br;q=1, zstd;q=0.5", "zstd"}} {
			w := e.do(req{path: p, key: e.all, header: map[string]string{"Accept-Encoding": c.accept}})
			if w.Header().Get("Content-Encoding") != c.want || !strings.Contains(w.Header().Get("Vary"), "Accept-Encoding") ||
				w.Header().Get("ETag") != id.Header().Get("ETag") {
				t.Fatalf("Accept-Encoding %s: %q, Vary %q, ETag %q", c.accept, w.Header().Get("Content-Encoding"), w.Header().Get("Vary"), w.Header().Get("ETag"))
			}
			var r io.Reader
			if c.want == "gzip" {
				zr, err := gzip.NewReader(w.Body)
				if err != nil {
					t.Fatal(err)
				}
				r = zr
			} else {
				zr, err := zstd.NewReader(w.Body)
				if err != nil {
					t.Fatal(err)
				}
				defer zr.Close()
				r = zr
			}
			got, err := io.ReadAll(r)
			if err != nil || !bytes.Equal(got, id.Body.Bytes()) {
				t.Errorf("%s body (%v) differs from the identity body:\n%s\n%s", c.want, err, got, id.Body.Bytes())
			}
		}
		for _, r := range []req{
			{path: base + "/accounts", key: e.all, header: map[string]string{"Accept-Encoding": "gzip"}},
			{method: http.MethodHead, path: p, key: e.all, header: map[string]string{"Accept-Encoding": "gzip"}},
			{path: p, key: e.all, header: map[string]string{"Accept-Encoding": "gzip", "If-None-Match": id.Header().Get("ETag")}},
		} {
			if w := e.do(r); w.Header().Get("Content-Encoding") != "" || w.Code >= 400 {
				t.Errorf("%s %s: %d, Content-Encoding %q", r.method, r.path, w.Code, w.Header().Get("Content-Encoding"))
			}
		}
	})
}
