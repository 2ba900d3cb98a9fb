package keyspage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/adsnap/svc/keys-admin/keyshttp"
)

// Identity is the signed-in user and the organization they act for; the same
// type keyshttp uses, so one function from the host serves both handlers.
type Identity = keyshttp.Identity

// IdentityFunc returns the caller's identity from the host's session. An
// error, or an empty organization or user, means the request is not signed
// in (401).
type IdentityFunc = keyshttp.IdentityFunc

// Keys is the part of keys.Manager the page uses.
type Keys interface {
	CanCreate(ctx context.Context, organizationID, userID string) error
	Create(ctx context.Context, req keys.CreateRequest) (*keys.CreatedKey, error)
	List(ctx context.Context, organizationID, userID string) ([]keys.KeyInfo, error)
	Revoke(ctx context.Context, organizationID, userID, keyID string) (*keys.KeyInfo, error)
}

// Config configures the page.
type Config struct {
	// Keys is the key lifecycle, usually a *keys.Manager. Required.
	Keys Keys
	// Identify returns who is signed in. Required.
	Identify IdentityFunc
	// Path is where the host mounts the page, e.g. "/settings/developer-keys"
	// (no trailing slash). Mount the handler at Path+"/". Required.
	Path string
	// Layout, if set, wraps the section in the host's page: it is executed
	// with a LayoutData. Its output must keep the section's Head (the
	// stylesheet and script) and adds no inline script (the
	// Content-Security-Policy forbids it). The default is a plain document.
	Layout *template.Template
	// SignInURL, if set, is linked from the page shown to a visitor who is
	// not signed in.
	SignInURL string
	// ReferenceURL, if set, is linked from the page as the API reference
	// (svc-api serves one at /developers/api).
	ReferenceURL string
	// Logger receives server-side failures (never a key value). nil discards.
	Logger *slog.Logger
	// Reveals holds each new key for its one view (see RevealStore). nil
	// keeps it in this process's memory: set it when several replicas
	// serve the page without session affinity.
	Reveals RevealStore
}

// LayoutData is what a Config.Layout template receives.
type LayoutData struct {
	Title    string        // "Developer keys"
	Head     template.HTML // the section's stylesheet and script tags, for <head>
	Content  template.HTML // the section itself
	Identity Identity      // the signed-in user, zero if none
}

// ContentSecurityPolicy is sent with every response: scripts, styles and
// images only from the host's own origin, no inline script, forms post only
// to the same origin, no framing.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

//go:embed assets templates
var files embed.FS

type asset struct {
	body        []byte
	contentType string
	etag        string
}

type handler struct {
	cfg    Config
	tmpl   *template.Template
	layout *template.Template
	assets map[string]asset
	head   template.HTML
	log    *slog.Logger
	now    func() time.Time
	// reveals holds new keys between the create and their one view.
	reveals RevealStore
	roller  Roller // Config.Keys when it can roll (roll.go); nil otherwise
}

// New returns the page's handler, already wrapped in CrossOriginProtection
// and the security headers.
func New(cfg Config) (http.Handler, error) { return newHandler(cfg, time.Now) }

// newHandler is New with a clock (tests move it past RevealTTL).
func newHandler(cfg Config, now func() time.Time) (http.Handler, error) {
	if cfg.Keys == nil || cfg.Identify == nil {
		return nil, errors.New("keyspage: Config.Keys and Config.Identify are required")
	}
	if cfg.Path == "" || !strings.HasPrefix(cfg.Path, "/") || strings.HasSuffix(cfg.Path, "/") {
		return nil, fmt.Errorf("keyspage: Config.Path %q must start with / and not end with one", cfg.Path)
	}
	h := &handler{cfg: cfg, log: cfg.Logger, assets: map[string]asset{}, now: now, reveals: cfg.Reveals}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if h.reveals == nil {
		h.reveals = newMemoryReveals(now)
	}
	var err error
	h.tmpl, err = template.New("").Funcs(funcs).ParseFS(files, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("keyspage: parse templates: %w", err)
	}
	h.roller, _ = cfg.Keys.(Roller)
	h.layout = cfg.Layout
	if h.layout == nil {
		h.layout = h.tmpl.Lookup("layout.html")
	}
	for name, ct := range map[string]string{"keys.css": "text/css; charset=utf-8", "keys.js": "text/javascript; charset=utf-8"} {
		b, err := fs.ReadFile(files, "assets/"+name)
		if err != nil {
			return nil, fmt.Errorf("keyspage: %w", err)
		}
		sum := sha256.Sum256(b)
		h.assets[name] = asset{body: b, contentType: ct, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
	}
	var head bytes.Buffer
	if err := h.tmpl.ExecuteTemplate(&head, "head", h.assetURLs()); err != nil {
		return nil, fmt.Errorf("keyspage: %w", err)
	}
	h.head = template.HTML(head.String()) //nolint:gosec // our own template's output

	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", h.page)
	mux.HandleFunc("POST /{$}", h.create)
	mux.HandleFunc("GET /created/{token}", h.created)
	mux.HandleFunc("GET /revoke/{id}", h.confirmRevoke)
	mux.HandleFunc("POST /revoke/{id}", h.revoke)
	mux.HandleFunc("GET /roll/{id}", h.rollForm)
	mux.HandleFunc("POST /roll/{id}", h.roll)
	mux.HandleFunc("GET /assets/{name}", h.asset)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		h.render(w, r, http.StatusNotFound, "message.html", messageData{Title: "Not found", Text: "There is no such page in Developer keys."})
	})

	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.render(w, r, http.StatusForbidden, "message.html", messageData{
			Title: "Request refused",
			Text:  "This request came from another site, so it was refused and nothing was changed. Use the form on the Developer keys page.",
		})
	}))
	inner := http.StripPrefix(cfg.Path, cop.Handler(mux))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Cache-Control", "no-store")
		hd.Set("Content-Security-Policy", ContentSecurityPolicy)
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "same-origin")
		hd.Set("Cross-Origin-Opener-Policy", "same-origin")
		inner.ServeHTTP(w, r)
	}), nil
}

type assetURLs struct{ CSS, JS string }

func (h *handler) assetURLs() assetURLs {
	return assetURLs{
		CSS: h.cfg.Path + "/assets/keys.css?v=" + strings.Trim(h.assets["keys.css"].etag, `"`),
		JS:  h.cfg.Path + "/assets/keys.js?v=" + strings.Trim(h.assets["keys.js"].etag, `"`),
	}
}

func (h *handler) asset(w http.ResponseWriter, r *http.Request) {
	a, ok := h.assets[r.PathValue("name")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	// The URL carries the content hash, so a new release gets a new URL:
	// the file itself may be cached (it holds nothing secret).
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.Header().Set("Content-Type", a.contentType)
	w.Header().Set("ETag", a.etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
}

// identify returns the signed-in identity, or renders the 401 page.
func (h *handler) identify(w http.ResponseWriter, r *http.Request) (Identity, bool) {
	id, err := h.cfg.Identify(r)
	if err != nil || id.OrganizationID == "" || id.UserID == "" {
		h.render(w, r, http.StatusUnauthorized, "message.html", messageData{
			Title: "Sign in", Text: "Sign in to manage developer keys.", Link: h.cfg.SignInURL, LinkText: "Sign in",
		})
		return Identity{}, false
	}
	return id, true
}

// render executes a section template and wraps it in the layout; nothing is
// written until both succeeded.
func (h *handler) render(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	var content, page bytes.Buffer
	if err := h.tmpl.ExecuteTemplate(&content, name, data); err != nil {
		h.fail(w, r, fmt.Errorf("render %s: %w", name, err))
		return
	}
	id, _ := h.cfg.Identify(r)
	if err := h.layout.Execute(&page, LayoutData{
		Title: "Developer keys", Head: h.head, Identity: id,
		Content: template.HTML(content.String()), //nolint:gosec // html/template output
	}); err != nil {
		h.fail(w, r, fmt.Errorf("render layout: %w", err))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = page.WriteTo(w)
}

// fail answers 500 in plain text after a rendering failure and logs it.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	// The route, not the path: a view's path holds its one-time token.
	h.log.ErrorContext(r.Context(), "developer keys page failed", "method", r.Method, "route", r.Pattern, "error", err)
	http.Error(w, "Something went wrong on our side; nothing was changed. Try again later.", http.StatusInternalServerError)
}
