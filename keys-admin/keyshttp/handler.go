package keyshttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"

	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/keys"
)

// Identity is the signed-in user and the organization they act for, as the
// host's session establishes them.
type Identity struct {
	OrganizationID string
	UserID         string
}

// IdentityFunc returns the caller's identity from the host's session. An
// error means the request is not signed in (401).
type IdentityFunc func(*http.Request) (Identity, error)

// Keys is the part of keys.Manager the handler uses.
type Keys interface {
	Create(ctx context.Context, req keys.CreateRequest) (*keys.CreatedKey, error)
	List(ctx context.Context, organizationID, userID string) ([]keys.KeyInfo, error)
	Revoke(ctx context.Context, organizationID, userID, keyID string) (*keys.KeyInfo, error)
}

type handler struct {
	keys     Keys
	identify IdentityFunc
	log      *slog.Logger
}

// New returns the handler. log receives server-side failures (never a key
// value); nil discards them.
func New(k Keys, identify IdentityFunc, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &handler{keys: k, identify: identify, log: log}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", h.list)
	mux.HandleFunc("POST /{$}", h.create)
	mux.HandleFunc("DELETE /{id}", h.revoke)
	mux.HandleFunc("POST /{id}/roll", h.roll) // roll.go
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such endpoint")
	})
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusForbidden, "cross-origin request refused")
	}))
	protected := cop.Handler(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		protected.ServeHTTP(w, r)
	})
}

// maxBody bounds a create request's body; maxScopes and maxScopeLen its
// scopes list (there are three scopes).
const (
	maxBody     = 16 << 10
	maxScopes   = 8
	maxScopeLen = 64
)

// createFields are CreateBody's JSON names, exactly.
var createFields = map[string]bool{"name": true, "scopes": true, "expiresInDays": true}

// decodeStrict decodes one JSON object from raw into v, refusing what
// encoding/json lets through: a field name in another letter case (json
// matches names case-insensitively), a duplicate field, and anything after
// the object. Unknown fields are refused by DisallowUnknownFields.
// encoding/json/v2 does this natively but is not yet in the standard
// library without GOEXPERIMENT, hence the token pass.
func decodeStrict(raw []byte, v any) error {
	return decodeFields(raw, createFields, "name, scopes, expiresInDays", v)
}

// decodeFields is decodeStrict for a body whose only fields are fields
// (names lists them for the message).
func decodeFields(raw []byte, fields map[string]bool, names string, v any) error {
	tok := json.NewDecoder(bytes.NewReader(raw))
	if t, err := tok.Token(); err != nil || t != json.Delim('{') {
		return errors.New("the body must be one JSON object")
	}
	seen := map[string]bool{}
	for tok.More() {
		t, err := tok.Token()
		if err != nil {
			return err
		}
		name, _ := t.(string)
		if !fields[name] {
			return fmt.Errorf("unknown field %q (field names are case-sensitive: %s)", truncate(name, 64), names)
		}
		if seen[name] {
			return fmt.Errorf("field %q is repeated", name)
		}
		seen[name] = true
		var skip json.RawMessage
		if err := tok.Decode(&skip); err != nil {
			return err
		}
	}
	if _, err := tok.Token(); err != nil {
		return err
	}
	if _, err := tok.Token(); err != io.EOF {
		return errors.New("data after the JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// validKeyID reports whether id is shaped like a key id ("key_" and letters
// or digits): anything else is no key, answered without echoing it.
func validKeyID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// CreateBody is the JSON body of a create request.
type CreateBody struct {
	Name          string   `json:"name"`
	Scopes        []string `json:"scopes"`
	ExpiresInDays int      `json:"expiresInDays"`
}

func (h *handler) create(w http.ResponseWriter, r *http.Request) {
	id, ok := h.who(w, r)
	if !ok {
		return
	}
	// Requiring JSON also stops cross-site form posts.
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "send the body as application/json")
		return
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body over %d bytes", maxBody))
		return
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "unreadable body")
		return
	}
	var body CreateBody
	if err := decodeStrict(raw, &body); err != nil {
		writeError(w, http.StatusBadRequest, "invalid JSON body: "+jsonProblem(err))
		return
	}
	if len(body.Scopes) > maxScopes {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("at most %d scopes", maxScopes))
		return
	}
	var scopes apikey.Scopes
	var problems []string
	for _, s := range body.Scopes {
		if len(s) > maxScopeLen {
			problems = append(problems, fmt.Sprintf("a scope is at most %d characters", maxScopeLen))
			continue
		}
		sc, err := apikey.ParseScope(s)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		scopes |= apikey.NewScopes(sc)
	}
	if len(problems) > 0 {
		writeError(w, http.StatusBadRequest, problems...)
		return
	}
	created, err := h.keys.Create(r.Context(), keys.CreateRequest{
		OrganizationID: id.OrganizationID, UserID: id.UserID,
		Name: body.Name, Scopes: scopes, ExpiresInDays: body.ExpiresInDays,
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, created)
}

func (h *handler) list(w http.ResponseWriter, r *http.Request) {
	id, ok := h.who(w, r)
	if !ok {
		return
	}
	list, err := h.keys.List(r.Context(), id.OrganizationID, id.UserID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": list})
}

func (h *handler) revoke(w http.ResponseWriter, r *http.Request) {
	id, ok := h.who(w, r)
	if !ok {
		return
	}
	keyID := r.PathValue("id")
	if !validKeyID(keyID) {
		writeError(w, http.StatusNotFound, "no such key in the organization")
		return
	}
	info, err := h.keys.Revoke(r.Context(), id.OrganizationID, id.UserID, keyID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, info)
}

func (h *handler) who(w http.ResponseWriter, r *http.Request) (Identity, bool) {
	id, err := h.identify(r)
	if err != nil || id.OrganizationID == "" || id.UserID == "" {
		writeError(w, http.StatusUnauthorized, "sign in to manage developer keys")
		return Identity{}, false
	}
	return id, true
}

// Status maps a keys error to its HTTP status by its kind (keys.ErrInvalid,
// keys.ErrRefused, keys.ErrNotFound, keys.ErrConflict); anything else is a
// failure of the server (500).
func Status(err error) int {
	switch {
	case errors.Is(err, keys.ErrInvalid), errors.Is(err, keys.ErrMalformedKey):
		return http.StatusBadRequest
	case errors.Is(err, keys.ErrUnauthenticated):
		return http.StatusUnauthorized
	case errors.Is(err, keys.ErrRefused):
		return http.StatusForbidden
	case errors.Is(err, keys.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, keys.ErrConflict):
		return http.StatusConflict
	}
	return http.StatusInternalServerError
}

func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	status := Status(err)
	if status == http.StatusInternalServerError {
		h.log.ErrorContext(r.Context(), "developer keys request failed", "method", r.Method, "path", r.URL.Path, "error", err)
		writeError(w, status, "internal error; try again later")
		return
	}
	writeError(w, status, err.Error())
}

func jsonProblem(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("syntax error at byte %d", syn.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("field %q must be %s", typ.Field, typ.Type)
	case errors.As(err, &tooBig):
		return "body too large"
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return strings.TrimPrefix(err.Error(), "json: ")
	case strings.HasPrefix(err.Error(), "unknown field"), strings.HasPrefix(err.Error(), "field "),
		strings.HasPrefix(err.Error(), "data after"), strings.HasPrefix(err.Error(), "the body must"):
		return err.Error()
	}
	return "unreadable body"
}

// ErrorBody is the JSON error body of this handler: the same two fields as
// the developer API's errors (SPEC §7), declared here on its own (the
// api-server has its own type).
type ErrorBody struct {
	StatusCode int `json:"statusCode"`
	Message    any `json:"message"`
}

func writeError(w http.ResponseWriter, status int, messages ...string) {
	var msg any = messages[0]
	if len(messages) > 1 {
		msg = messages
	}
	writeJSON(w, status, ErrorBody{StatusCode: status, Message: msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
