package keyshttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/adsnap/svc/keys-admin/keys"
)

// Roller is the part of keys.Manager that rolls a key (keys.Manager.Roll).
// POST /{id}/roll works when the handler's Keys implements it, as a
// *keys.Manager does; otherwise it answers 404.
type Roller interface {
	Roll(ctx context.Context, organizationID, userID, keyID string, opt keys.RollOptions) (*keys.RolledKey, error)
}

// RollBody is the JSON body of a roll request: the new key's expiry in days
// (1 to 90) and how long the old key keeps working, in seconds (0 to 7
// days; 0: it stops at once).
type RollBody struct {
	ExpiresInDays int   `json:"expiresInDays"`
	GraceSeconds  int64 `json:"graceSeconds"`
}

var rollFields = map[string]bool{"expiresInDays": true, "graceSeconds": true}

// roll is POST /{id}/roll: 201 with {"new": the new key, with its value
// (once), "old": the old key with its new expiry}.
func (h *handler) roll(w http.ResponseWriter, r *http.Request) {
	id, ok := h.who(w, r)
	if !ok {
		return
	}
	roller, ok := h.keys.(Roller)
	keyID := r.PathValue("id")
	if !ok || !validKeyID(keyID) {
		writeError(w, http.StatusNotFound, "no such key in the organization")
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "send the body as application/json")
		return
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body over %d bytes", maxBody))
		return
	case err != nil:
		writeError(w, http.StatusBadRequest, "unreadable body")
		return
	}
	var body RollBody
	if err := decodeFields(raw, rollFields, "expiresInDays, graceSeconds", &body); err != nil {
		writeError(w, http.StatusBadRequest, "invalid JSON body: "+jsonProblem(err))
		return
	}
	if body.GraceSeconds < 0 || body.GraceSeconds > int64(keys.MaxRollGrace/time.Second) {
		h.fail(w, r, keys.ErrInvalidGrace)
		return
	}
	rolled, err := roller.Roll(r.Context(), id.OrganizationID, id.UserID, keyID, keys.RollOptions{
		ExpiresInDays: body.ExpiresInDays, Grace: time.Duration(body.GraceSeconds) * time.Second,
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, rolled)
}
