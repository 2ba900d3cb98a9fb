package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	apiserver "github.com/adsnap/svc/api-server"
	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/server"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
)

var reOperation = regexp.MustCompile(`data-operation="([^"]+)" data-scope="([^"]*)"`)

// TestReferenceNamesTheScopeOf403 (issue 44): /developers/api, mounted
// beside the /developers/ site, shows every operation of openapi.yaml with
// a scope, and for each one a key without that scope gets 403 naming it,
// while a key with only that scope is not refused for its scope.
func TestReferenceNamesTheScopeOf403(t *testing.T) {
	b := dbtest.SQLite(t)
	ctx := t.Context()
	if err := testenv.Migrate(ctx, b.DB); err != nil {
		t.Fatal(err)
	}
	testenv.Load(t, b.DB, time.Now().UTC())
	st, err := store.New(ctx, b.Handle)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	doc, err := apiserver.OpenAPIJSON()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "install-svc.sh"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := server.New(server.Config{
		Keys: keys.NewAuthenticator(b.Handle, keys.AuthenticatorOptions{}), Store: st, Limiter: ratelimit.NewMemory(nil),
		OpenAPIJSON: doc, DownloadsDir: dir, DownloadsSiteURL: "https://dl.example",
	})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, h: h}
	km := keys.NewManager(b.DB)
	made := map[string]string{} // one key per set of scopes: the organization holds at most 10
	key := func(scopes apikey.Scopes) string {
		if k, ok := made[fmt.Sprint(scopes)]; ok {
			return k
		}
		k, err := km.Create(ctx, keys.CreateRequest{OrganizationID: "org_a", UserID: testenv.OwnerA, Scopes: scopes, ExpiresInDays: 1})
		if err != nil {
			t.Fatal(err)
		}
		made[fmt.Sprint(scopes)] = k.Key
		return k.Key
	}

	w := e.get("/developers/api", "")
	csp := w.Header().Get("Content-Security-Policy")
	if w.Code != http.StatusOK || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") ||
		!strings.HasPrefix(csp, "default-src 'self';") || strings.Contains(csp, "unsafe") {
		t.Fatalf("/developers/api: %d %v", w.Code, w.Header())
	}
	page := w.Body.String()
	if strings.Contains(page, "<script") || strings.Contains(page, "style=") || regexp.MustCompile(`(src|href)="(https?:)?//`).MatchString(page) {
		t.Errorf("the page loads a script, has an inline style or names another origin")
	}
	if w := e.get("/developers/", ""); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `href="/developers/api"`) {
		t.Errorf("/developers/ beside the reference: %d, links it: %v", w.Code, strings.Contains(w.Body.String(), `href="/developers/api"`))
	}
	css := regexp.MustCompile(`href="(/developers/api/reference-[0-9a-f]{16}\.css)"`).FindStringSubmatch(page)
	if css == nil {
		t.Fatal("no style sheet")
	}
	if w := e.get(css[1], ""); w.Code != http.StatusOK || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/css") {
		t.Errorf("%s: %d", css[1], w.Code)
	}
	if w := e.get("/developers/api/nope.css", ""); w.Code != http.StatusNotFound {
		t.Errorf("/developers/api/nope.css: %d", w.Code)
	}

	var d struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	shown := map[string]string{}
	for _, m := range reOperation.FindAllStringSubmatch(page, -1) {
		shown[m[1]] = m[2]
	}
	for path, item := range d.Paths {
		for method, op := range item {
			scope, ok := shown[op.OperationID]
			if !ok || scope == "" {
				t.Errorf("%s %s (%s): on the page %v, scope %q", method, path, op.OperationID, ok, scope)
				continue
			}
			sc, err := apikey.ParseScope(scope)
			if err != nil {
				t.Errorf("%s: the page names %q: %v", op.OperationID, scope, err)
				continue
			}
			if method != "get" || strings.Contains(path, "{") {
				continue // the API has only GETs without path parameters today
			}
			others := apikey.NewScopes(apikey.AllScopes...) &^ apikey.NewScopes(sc)
			w := e.get(server.BasePath+path, key(others))
			if w.Code != http.StatusForbidden {
				t.Errorf("%s without %s (the scope the page names): %d, want 403", path, scope, w.Code)
			} else if msg, _ := decodeError(t, w).Message.(string); !strings.Contains(msg, "("+scope+")") {
				t.Errorf("%s without %s: 403 %q, which names another scope than the page", path, scope, msg)
			}
			if w := e.get(server.BasePath+path, key(apikey.NewScopes(sc))); w.Code == http.StatusForbidden {
				t.Errorf("%s with only %s: 403 %s", path, scope, w.Body)
			}
		}
	}
	if len(shown) < 4 {
		t.Errorf("the page shows %d operations", len(shown))
	}
}
