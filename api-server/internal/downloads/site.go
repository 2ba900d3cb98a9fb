package downloads

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
)

// Prefix is the path the site is served under.
const Prefix = "/developers/"

// Site serves a release directory under Prefix: the index page (Prefix)
// and each file (Prefix + name).
type Site struct {
	dir  string       // the release directory
	site string       // the configured site URL, without a trailing slash
	log  *slog.Logger // for a directory that cannot be read
}

// New returns the /developers/ site over dir as an http.Handler, naming
// site (a plain http(s) URL, required) in its install commands and in the
// install script's default: nothing of a request (Host, an absolute-form
// target, X-Forwarded-*) ever names the site. A nil log discards.
func New(dir, site string, log *slog.Logger) (*Site, error) {
	site, err := checkSite(site)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Site{dir: dir, site: site, log: log}, nil
}

// ServeHTTP answers GET and HEAD for Prefix (the index) and Prefix + a
// plain file name; anything else is 404 with the error body.
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name, ok := strings.CutPrefix(r.URL.Path, Prefix)
	switch {
	case !ok:
		fail(w, http.StatusNotFound, "no such download")
	case name == "":
		s.index(w, r)
	default:
		s.downloadFile(w, r, name)
	}
}

// errorBody is the API's error body (SPEC §7).
type errorBody struct {
	StatusCode int    `json:"statusCode"`
	Message    string `json:"message"`
}

// fail writes the API's error body, as the server's own refusals do, and
// closes the connection.
func fail(w http.ResponseWriter, status int, message string) {
	h := w.Header()
	h.Set("Connection", "close")
	if status == http.StatusServiceUnavailable && h.Get("Retry-After") == "" {
		h.Set("Retry-After", "1")
	}
	h.Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	b, _ := json.Marshal(errorBody{StatusCode: status, Message: message})
	_, _ = w.Write(b)
}
