package reference

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"
)

// Why plain server-rendered HTML and not a renderer such as Redoc: the page
// must make no request to another host and run under a strict CSP (no
// 'unsafe-eval', no inline script or style), offline and air-gapped. A
// template over the document is a few kilobytes, needs no JavaScript, no
// bundle to pin, audit and update (Redoc's standalone bundle is about
// 650 KB gzipped), renders before any script would run, and shows exactly
// what the tests check: each operation's scope, limits and examples.

// Path is where the reference is served; its style sheet is under it.
const Path = "/developers/api"

// ContentSecurityPolicy is sent with the page and its style sheet: nothing
// from another origin, no script at all (the page has none), no inline
// style, no form, no framing.
const ContentSecurityPolicy = "default-src 'self'; script-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

//go:embed page.html reference.css
var files embed.FS

// Page is the API reference as an http.Handler: the HTML rendered once
// from the OpenAPI document, and its style sheet.
type Page struct {
	html, css []byte
	cssPath   string
	etag      string
}

// Options configure the page.
type Options struct {
	// SiteURL is the site named in the examples' set-up lines
	// (SVC_SITE_URL); "" shows a placeholder.
	SiteURL string
}

// New renders the reference of the OpenAPI document (its JSON form, as
// served at openapi.json). Every operation of its paths is shown.
func New(openapiJSON []byte, opt Options) (*Page, error) {
	d, err := parse(openapiJSON)
	if err != nil {
		return nil, err
	}
	css, err := files.ReadFile("reference.css")
	if err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	sum := sha256.Sum256(css)
	p := &Page{css: css, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
	p.cssPath = Path + "/reference-" + hex.EncodeToString(sum[:8]) + ".css"
	d.CSS, d.Site = p.cssPath, strings.TrimSuffix(opt.SiteURL, "/")
	tmpl, err := template.New("page.html").ParseFS(files, "page.html")
	if err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, d); err != nil {
		return nil, fmt.Errorf("reference: render: %w", err)
	}
	p.html = b.Bytes()
	return p, nil
}

// ServeHTTP answers GET and HEAD of Path (the page) and of the style
// sheet's path; anything else is 404.
func (p *Page) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	switch r.URL.Path {
	case Path:
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Cache-Control", "no-cache")
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(p.html))
	case p.cssPath:
		// The name carries the content hash: a new release has a new name.
		h.Set("Content-Type", "text/css; charset=utf-8")
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
		h.Set("ETag", p.etag)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(p.css))
	default:
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("no such page; the API reference is at " + Path + "\n"))
	}
}

// Size is the page's HTML and style sheet in bytes, uncompressed.
func (p *Page) Size() (html, css int) { return len(p.html), len(p.css) }
