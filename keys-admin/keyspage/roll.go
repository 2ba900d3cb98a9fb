package keyspage

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/adsnap/svc/keys-admin/keys"
)

// Roller is the part of keys.Manager that rolls a key (keys.Manager.Roll,
// DESIGN §6). The page offers "Roll" when Config.Keys implements it, as a
// *keys.Manager does; a Keys without it keeps the page as it was.
type Roller interface {
	Roll(ctx context.Context, organizationID, userID, keyID string, opt keys.RollOptions) (*keys.RolledKey, error)
}

// GracePresets are the grace periods the roll form offers: how long the
// old key keeps working after the roll.
var GracePresets = []time.Duration{0, time.Hour, 24 * time.Hour, 3 * 24 * time.Hour, 7 * 24 * time.Hour}

// atGrace: a refusal shown next to the grace choice.
const atGrace = "grace"

// graceChoice is one grace period on the form: its value in seconds.
type graceChoice struct {
	Seconds int64
	Label   string
}

func graceLabel(d time.Duration) string {
	switch {
	case d == 0:
		return "None: the old key stops working at once"
	case d == time.Hour:
		return "1 hour"
	case d < 24*time.Hour:
		return fmt.Sprintf("%d hours", int(d.Hours()))
	case d == 24*time.Hour:
		return "1 day"
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
}

// rollData is what roll.html receives.
type rollData struct {
	Path       string
	Key        keys.KeyInfo
	Presets    []int
	MinDays    int
	MaxDays    int
	Graces     []graceChoice
	Expiry     string // a preset or "custom"
	CustomDays string
	Grace      string // seconds
	Errors     map[string]string
}

func (h *handler) newRoll(k keys.KeyInfo) *rollData {
	d := &rollData{
		Path: h.cfg.Path, Key: k, Presets: ExpiryPresets, MinDays: keys.MinExpiryDays, MaxDays: keys.MaxExpiryDays,
		Expiry: "30", Grace: strconv.Itoa(24 * 60 * 60), Errors: map[string]string{},
	}
	for _, g := range GracePresets {
		d.Graces = append(d.Graces, graceChoice{Seconds: int64(g / time.Second), Label: graceLabel(g)})
	}
	return d
}

// explainRoll is explain with the refusals only a roll has.
func explainRoll(err error) refusal {
	switch {
	case errors.Is(err, keys.ErrInvalidGrace):
		return refusal{http.StatusBadRequest, atGrace, "Choose a grace period from none to 7 days."}
	case errors.Is(err, keys.ErrAlreadyRolled):
		return refusal{http.StatusConflict, atRevoke, "This key was already rolled: roll its replacement instead."}
	case errors.Is(err, keys.ErrKeyExpired):
		return refusal{http.StatusConflict, atRevoke, "This key has expired, so it cannot be rolled. Create a new key instead."}
	case errors.Is(err, keys.ErrKeyLimit):
		return refusal{http.StatusConflict, atGrace, fmt.Sprintf(
			"During the grace period both keys count, and this organization already has %d active keys. Choose no grace period, or revoke a key first.", keys.MaxActiveKeys)}
	}
	return explain(err)
}

// rollForm is the roll's form: the key, the new key's expiry and the old
// key's grace period.
func (h *handler) rollForm(w http.ResponseWriter, r *http.Request) {
	id, ok := h.identify(w, r)
	if !ok {
		return
	}
	k, ok := h.findKey(w, r, id)
	if !ok {
		return
	}
	d := h.newRoll(*k)
	switch {
	case h.roller == nil:
		h.refuse(w, r, keys.ErrKeyNotFound)
		return
	case k.State == keys.StateRevoked:
		d.Errors[atRevoke] = explain(keys.ErrAlreadyRevoked).sentence
	case k.ReplacedBy != "":
		d.Errors[atRevoke] = explainRoll(keys.ErrAlreadyRolled).sentence
	case k.State == keys.StateExpired:
		d.Errors[atRevoke] = explainRoll(keys.ErrKeyExpired).sentence
	}
	h.render(w, r, http.StatusOK, "roll.html", d)
}

// roll rolls the key and, as a create does, redirects to the new key's one
// view (Post/Redirect/Get), which also shows the old key with its expiry.
func (h *handler) roll(w http.ResponseWriter, r *http.Request) {
	id, ok := h.identify(w, r)
	if !ok {
		return
	}
	if h.roller == nil {
		h.refuse(w, r, keys.ErrKeyNotFound)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		h.render(w, r, http.StatusBadRequest, "message.html", messageData{
			Title: "Request refused", Text: "The form could not be read, so nothing was changed.", Link: h.cfg.Path + "/", LinkText: "Back to Developer keys",
		})
		return
	}
	k, ok := h.findKey(w, r, id)
	if !ok {
		return
	}
	d := h.newRoll(*k)
	d.Expiry, d.CustomDays, d.Grace = r.PostForm.Get("expiry"), strings.TrimSpace(r.PostForm.Get("custom_days")), r.PostForm.Get("grace")
	days := d.Expiry
	if d.Expiry == "custom" {
		days = d.CustomDays
	}
	opt := keys.RollOptions{}
	var err error
	if opt.ExpiresInDays, err = strconv.Atoi(days); err != nil {
		d.Errors[atExpiry] = fmt.Sprintf("Enter a whole number of days from %d to %d.", keys.MinExpiryDays, keys.MaxExpiryDays)
	}
	secs, err := strconv.ParseInt(d.Grace, 10, 64)
	if err != nil || secs < 0 || secs > int64(keys.MaxRollGrace/time.Second) {
		d.Errors[atGrace] = explainRoll(keys.ErrInvalidGrace).sentence
	}
	opt.Grace = time.Duration(secs) * time.Second
	if len(d.Errors) > 0 {
		h.render(w, r, http.StatusBadRequest, "roll.html", d)
		return
	}
	rolled, err := h.roller.Roll(r.Context(), id.OrganizationID, id.UserID, k.ID, opt)
	if err != nil {
		ref := explainRoll(err)
		if ref.status == http.StatusInternalServerError || ref.at == atManage {
			h.refuse(w, r, err)
			return
		}
		d.Errors[ref.at] = ref.sentence
		h.render(w, r, ref.status, "roll.html", d)
		return
	}
	view, err := h.hold(r.Context(), id, &rolled.New)
	if err != nil {
		h.unheld(w, r, id, &rolled.New, err)
		return
	}
	http.Redirect(w, r, view, http.StatusSeeOther)
}
