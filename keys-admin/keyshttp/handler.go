// Package keyshttp is the HTTP API the settings backend mounts, behind its
// own session authentication, to create, list and revoke developer keys.
//
//	GET    /        list the organization's keys
//	POST   /        create a key: {"name", "scopes": [...], "expiresInDays"}; 201 with the value, once
//	DELETE /{id}    revoke a key
//
// Mount it under a prefix with http.StripPrefix, e.g.
//
//	mux.Handle("/settings/developer-keys/", http.StripPrefix("/settings/developer-keys", h))
//
// Errors are JSON bodies {"statusCode": n, "message": "..."} with 400, 401,
// 403, 404, 409 or 500. Every response is marked no-store.
package keyshttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// Keys is the part of keys.Service the handler uses.
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
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such endpoint")
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		mux.ServeHTTP(w, r)
	})
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
	var body CreateBody
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 16<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, "invalid JSON body: "+jsonProblem(err))
		return
	}
	var scopes apikey.Scopes
	var problems []string
	for _, s := range body.Scopes {
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
	info, err := h.keys.Revoke(r.Context(), id.OrganizationID, id.UserID, r.PathValue("id"))
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

// Status maps a keys error to its HTTP status. It is the one place where
// service errors become statuses.
func Status(err error) int {
	switch {
	case errors.Is(err, keys.ErrInvalidScopes), errors.Is(err, keys.ErrInvalidExpiry),
		errors.Is(err, keys.ErrInvalidName), errors.Is(err, keys.ErrMalformedKey):
		return http.StatusBadRequest
	case errors.Is(err, keys.ErrUnauthenticated):
		return http.StatusUnauthorized
	case errors.Is(err, keys.ErrNotMember), errors.Is(err, keys.ErrMemberRemoved),
		errors.Is(err, keys.ErrNotAdmin), errors.Is(err, keys.ErrSubscriptionInactive),
		errors.Is(err, keys.ErrIssuerNotAdmin), errors.Is(err, keys.ErrScopeMissing):
		return http.StatusForbidden
	case errors.Is(err, keys.ErrOrganizationNotFound), errors.Is(err, keys.ErrKeyNotFound):
		return http.StatusNotFound
	case errors.Is(err, keys.ErrKeyLimit), errors.Is(err, keys.ErrAlreadyRevoked):
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
	}
	return "unreadable body"
}

// ErrorBody is the JSON error shape shared with the developer API.
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
