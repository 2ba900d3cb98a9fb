package keyspage

import (
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/keys"
)

// ExpiryPresets are the expiry choices the form offers besides a custom
// number of days.
var ExpiryPresets = []int{7, 30, 60, 90}

// Where a refusal is shown on the page.
const (
	atManage = "manage" // the whole section: the caller cannot manage keys
	atCreate = "create" // the create button
	atName   = "name"
	atScopes = "scopes"
	atExpiry = "expiry"
	atRevoke = "revoke"
)

// refusal is a keys error turned into a status and a sentence for a user,
// with the control it belongs next to.
type refusal struct {
	status   int
	at       string
	sentence string
}

// explain turns an error of keys.Manager into what the page says. It is the
// one place where the service's errors become statuses and sentences;
// anything it does not know is a 500 that is logged.
func explain(err error) refusal {
	var sub *keys.SubscriptionError
	switch {
	case errors.As(err, &sub) && sub.TrialOver() && sub.TrialEndsAt != nil:
		return refusal{http.StatusForbidden, atCreate, fmt.Sprintf(
			"The organization's trial ended on %s, so new keys cannot be created until the subscription is paid. You can still revoke keys.",
			sub.TrialEndsAt.UTC().Format("2 January 2006"))}
	case errors.As(err, &sub):
		return refusal{http.StatusForbidden, atCreate,
			"The organization's subscription does not allow creating keys (status: " + sub.Status + "). You can still revoke keys."}
	case errors.Is(err, keys.ErrSubscriptionInactive):
		return refusal{http.StatusForbidden, atCreate, "The organization's subscription does not allow creating keys. You can still revoke keys."}
	case errors.Is(err, keys.ErrKeyLimit):
		return refusal{http.StatusConflict, atCreate, fmt.Sprintf(
			"This organization already has %d active keys, the most it can have. Revoke one to create another.", keys.MaxActiveKeys)}
	case errors.Is(err, keys.ErrNotAdmin):
		return refusal{http.StatusForbidden, atManage,
			"Only owners and administrators of this organization can create, list or revoke developer keys. Ask one of them if you need a key."}
	case errors.Is(err, keys.ErrMemberRemoved):
		return refusal{http.StatusForbidden, atManage, "Your membership of this organization was removed, so you cannot manage its developer keys."}
	case errors.Is(err, keys.ErrNotMember):
		return refusal{http.StatusForbidden, atManage, "You are not a member of this organization, so you cannot manage its developer keys."}
	case errors.Is(err, keys.ErrOrganizationNotFound):
		return refusal{http.StatusNotFound, atManage, "This organization does not exist."}
	case errors.Is(err, keys.ErrInvalidName):
		return refusal{http.StatusBadRequest, atName,
			fmt.Sprintf("Use at most %d characters, without control characters.", keys.MaxNameLen)}
	case errors.Is(err, keys.ErrInvalidScopes):
		return refusal{http.StatusBadRequest, atScopes, "Choose at least one scope."}
	case errors.Is(err, keys.ErrInvalidExpiry):
		return refusal{http.StatusBadRequest, atExpiry,
			fmt.Sprintf("Choose an expiry from %d to %d days.", keys.MinExpiryDays, keys.MaxExpiryDays)}
	case errors.Is(err, keys.ErrKeyNotFound):
		return refusal{http.StatusNotFound, atRevoke, "There is no such key in this organization."}
	case errors.Is(err, keys.ErrAlreadyRevoked):
		return refusal{http.StatusConflict, atRevoke, "This key was already revoked."}
	}
	return refusal{http.StatusInternalServerError, atManage, "Something went wrong on our side; nothing was changed. Try again later."}
}

// form is the create form's values and the refusals placed next to its
// controls.
type form struct {
	Name       string
	Scopes     []string
	Expiry     string // a preset ("7") or "custom"
	CustomDays string
	Errors     map[string]string
}

func (f form) Checked(scope apikey.Scope) bool { return slices.Contains(f.Scopes, string(scope)) }

// pageData is what page.html receives.
type pageData struct {
	Path          string
	Reference     string // Config.ReferenceURL
	Identity      Identity
	Keys          []keys.KeyInfo
	Active        int
	MaxActive     int
	Manage        string // why the caller cannot manage keys; "" when they can
	CreateRefusal string // why the create form is disabled; "" when it is not
	RevokeNote    string // said when creation is refused but revocation works
	CanRoll       bool   // "Roll" is offered: a Roller, and creation refused at most by the limit
	Form          form
	Scopes        []apikey.Scope
	Presets       []int
	MinDays       int
	MaxDays       int
	Created       *keys.CreatedKey
	Notice        string
}

func (h *handler) newPage(id Identity) *pageData {
	return &pageData{
		Path: h.cfg.Path, Reference: h.cfg.ReferenceURL, Identity: id, MaxActive: keys.MaxActiveKeys,
		Scopes: apikey.AllScopes, Presets: ExpiryPresets,
		MinDays: keys.MinExpiryDays, MaxDays: keys.MaxExpiryDays,
		Form: form{Expiry: "30", Errors: map[string]string{}},
	}
}

// load fills the list and the create form's state. It returns the status of
// the page: 200, or the refusal's status when the caller cannot manage keys.
func (h *handler) load(w http.ResponseWriter, r *http.Request, d *pageData) (int, bool) {
	list, err := h.cfg.Keys.List(r.Context(), d.Identity.OrganizationID, d.Identity.UserID)
	if err != nil {
		ref := explain(err)
		if ref.status == http.StatusInternalServerError {
			h.serverError(w, r, err)
			return 0, false
		}
		d.Manage = ref.sentence
		return ref.status, true
	}
	d.Keys = list
	for _, k := range list {
		if k.State == keys.StateActive {
			d.Active++
		}
	}
	err = h.cfg.Keys.CanCreate(r.Context(), d.Identity.OrganizationID, d.Identity.UserID)
	d.CanRoll = h.roller != nil && (err == nil || errors.Is(err, keys.ErrKeyLimit))
	if err != nil {
		ref := explain(err)
		if ref.status == http.StatusInternalServerError {
			h.serverError(w, r, err)
			return 0, false
		}
		d.CreateRefusal = ref.sentence
	}
	return http.StatusOK, true
}

func (h *handler) page(w http.ResponseWriter, r *http.Request) {
	id, ok := h.identify(w, r)
	if !ok {
		return
	}
	d := h.newPage(id)
	status, ok := h.load(w, r, d)
	if !ok {
		return
	}
	if rid := r.URL.Query().Get("revoked"); rid != "" && d.Manage == "" {
		for _, k := range d.Keys {
			if k.ID == rid && k.State == keys.StateRevoked {
				d.Notice = "Revoked the key " + displayName(k.Name) + ". Requests with it are refused from now on."
			}
		}
	}
	h.render(w, r, status, "page.html", d)
}

// maxForm bounds a form body: a name of 100 characters, three scopes and a
// number fit in far less.
const maxForm = 8 << 10

func (h *handler) create(w http.ResponseWriter, r *http.Request) {
	id, ok := h.identify(w, r)
	if !ok {
		return
	}
	d := h.newPage(id)
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		h.render(w, r, http.StatusBadRequest, "message.html", messageData{
			Title: "Request refused", Text: "The form could not be read, so nothing was changed.", Link: h.cfg.Path + "/", LinkText: "Back to Developer keys",
		})
		return
	}
	f := form{
		Name: r.PostForm.Get("name"), Scopes: r.PostForm["scope"], Expiry: r.PostForm.Get("expiry"),
		CustomDays: strings.TrimSpace(r.PostForm.Get("custom_days")), Errors: map[string]string{},
	}
	req := keys.CreateRequest{OrganizationID: id.OrganizationID, UserID: id.UserID, Name: strings.TrimSpace(f.Name)}
	for _, s := range f.Scopes {
		sc, err := apikey.ParseScope(s)
		if err != nil {
			f.Errors[atScopes] = "Choose among the scopes listed."
			continue
		}
		req.Scopes |= apikey.NewScopes(sc)
	}
	days := f.Expiry
	if f.Expiry == "custom" {
		days = f.CustomDays
	}
	n, err := strconv.Atoi(days)
	if err != nil {
		f.Errors[atExpiry] = fmt.Sprintf("Enter a whole number of days from %d to %d.", keys.MinExpiryDays, keys.MaxExpiryDays)
	}
	req.ExpiresInDays = n

	status := http.StatusBadRequest
	if len(f.Errors) == 0 {
		created, err := h.cfg.Keys.Create(r.Context(), req)
		if err == nil {
			// Post/Redirect/Get: the key is held server-side for the one
			// GET of its view (reveal.go), never put in the URL.
			view, err := h.hold(r.Context(), id, created)
			if err != nil {
				h.unheld(w, r, id, created, err)
				return
			}
			http.Redirect(w, r, view, http.StatusSeeOther)
			return
		}
		ref := explain(err)
		if ref.status == http.StatusInternalServerError {
			h.serverError(w, r, err)
			return
		}
		status = ref.status
		f.Errors[ref.at] = ref.sentence
	}
	if _, ok := h.load(w, r, d); !ok {
		return
	}
	if msg, ok := f.Errors[atManage]; ok {
		d.Manage = msg
	}
	if msg, ok := f.Errors[atCreate]; ok {
		d.CreateRefusal = msg
	}
	d.Form = f
	h.render(w, r, status, "page.html", d)
}

// confirmData is what confirm.html receives.
type confirmData struct {
	Path  string
	Key   keys.KeyInfo
	Error string
}

func (h *handler) findKey(w http.ResponseWriter, r *http.Request, id Identity) (*keys.KeyInfo, bool) {
	list, err := h.cfg.Keys.List(r.Context(), id.OrganizationID, id.UserID)
	if err != nil {
		h.refuse(w, r, err)
		return nil, false
	}
	for _, k := range list {
		if k.ID == r.PathValue("id") {
			return &k, true
		}
	}
	h.refuse(w, r, keys.ErrKeyNotFound)
	return nil, false
}

// confirmRevoke is the confirmation step that works without JavaScript.
func (h *handler) confirmRevoke(w http.ResponseWriter, r *http.Request) {
	id, ok := h.identify(w, r)
	if !ok {
		return
	}
	k, ok := h.findKey(w, r, id)
	if !ok {
		return
	}
	d := confirmData{Path: h.cfg.Path, Key: *k}
	if k.State == keys.StateRevoked {
		d.Error = explain(keys.ErrAlreadyRevoked).sentence
	}
	h.render(w, r, http.StatusOK, "confirm.html", d)
}

func (h *handler) revoke(w http.ResponseWriter, r *http.Request) {
	id, ok := h.identify(w, r)
	if !ok {
		return
	}
	if _, err := h.cfg.Keys.Revoke(r.Context(), id.OrganizationID, id.UserID, r.PathValue("id")); err != nil {
		h.refuse(w, r, err)
		return
	}
	// Post/Redirect/Get: a reload of the result does not post again. The
	// URL holds the key's id, never its value.
	http.Redirect(w, r, h.cfg.Path+"/?revoked="+url.QueryEscape(r.PathValue("id")), http.StatusSeeOther)
}

// refuse renders a refusal of a revoke or confirm request on its own page.
func (h *handler) refuse(w http.ResponseWriter, r *http.Request, err error) {
	ref := explain(err)
	if ref.status == http.StatusInternalServerError {
		h.serverError(w, r, err)
		return
	}
	h.render(w, r, ref.status, "message.html", messageData{
		Title: "Request refused", Text: ref.sentence, Link: h.cfg.Path + "/", LinkText: "Back to Developer keys",
	})
}

func (h *handler) serverError(w http.ResponseWriter, r *http.Request, err error) {
	h.log.ErrorContext(r.Context(), "developer keys request failed", "method", r.Method, "route", r.Pattern, "error", err)
	h.render(w, r, http.StatusInternalServerError, "message.html", messageData{
		Title: "Something went wrong", Text: explain(err).sentence, Link: h.cfg.Path + "/", LinkText: "Back to Developer keys",
	})
}

// messageData is what message.html receives.
type messageData struct {
	Title, Text, Link, LinkText string
}

// hiddenChars are shown as a visible code point in names: bidirectional
// controls (which can reorder what a reader sees, e.g. U+202E) and invisible
// characters. Hand-written: the standard library has the Bidi_Control table
// but no "invisible" class that leaves emoji joiners alone.
func hiddenChar(r rune) bool {
	switch r {
	case '\u200B', '\u2060', '\uFEFF', '\u00AD':
		return true
	}
	return r >= '\u200E' && r <= '\u200F' || r >= '\u202A' && r <= '\u202E' || r >= '\u2066' && r <= '\u2069' || r == '\u061C'
}

// displayName is a key's name for plain-text sentences: hidden characters
// as visible code points, and a placeholder for an empty name.
func displayName(name string) string {
	if name == "" {
		return "(no name)"
	}
	var b strings.Builder
	b.WriteString("“")
	for _, r := range name {
		if hiddenChar(r) {
			fmt.Fprintf(&b, "[U+%04X]", r)
			continue
		}
		b.WriteRune(r)
	}
	b.WriteString("”")
	return b.String()
}

// namePart is a run of a name: either ordinary text or one hidden character.
type namePart struct {
	Text   string
	Hidden bool
}

func nameParts(name string) []namePart {
	var out []namePart
	start := 0
	for i, r := range name {
		if hiddenChar(r) {
			if i > start {
				out = append(out, namePart{Text: name[start:i]})
			}
			out = append(out, namePart{Text: fmt.Sprintf("U+%04X", r), Hidden: true})
			start = i + len(string(r))
		}
	}
	if start < len(name) {
		out = append(out, namePart{Text: name[start:]})
	}
	return out
}

var funcs = template.FuncMap{
	"nameParts": nameParts,
	"plainName": func(name string) string { return strings.Trim(displayName(name), "“”") },
	"when":      func(t time.Time) string { return t.UTC().Format("2 Jan 2006 15:04 UTC") },
	"iso":       func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"join":      strings.Join,
	"eqs":       func(a string, b int) bool { return a == strconv.Itoa(b) },
}
