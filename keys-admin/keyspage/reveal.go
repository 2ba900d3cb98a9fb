package keyspage

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/adsnap/svc/keys-admin/keys"
)

// The new key's one view (Post/Redirect/Get).
//
// A create is answered with 303 See Other to Path+"/created/TOKEN", and only
// the GET of that URL shows the key. A reload of that page, or going back
// and forward to it, is another GET: the key was handed out by the first one
// and is gone, so the page says it was shown once and lists the keys;
// nothing is posted again, so no key is created that nobody saw.
//
// Between the POST and the GET the key is held server-side, in a
// RevealStore (by default this process's memory), never in the URL, a
// cookie, a log line or on disk. Why the token in the URL is safe to appear
// in browser history, an access log or a Referer:
//   - it is 128 random bits (crypto/rand), so it cannot be guessed;
//   - it is bound to the identity that created the key: the store is keyed
//     by a hash of organization, user and token, so another user (or another
//     organization) presenting it finds nothing, and the store itself never
//     holds a token that could be replayed;
//   - it is good for one view: the GET that shows the key deletes it (Take);
//   - it expires RevealTTL after the create, viewed or not;
//   - whoever could redeem it is already signed in as that owner or
//     administrator, and could create a key of their own anyway.
// The view is sent with Referrer-Policy: no-referrer and, like every page,
// Cache-Control: no-store; the page's script removes the key from the page
// when it is left, so a back-forward cache never shows it again.

// RevealTTL is how long a new key waits for its one view. The browser
// follows the redirect at once; the limit only bounds how long an abandoned
// key stays in memory.
const RevealTTL = 2 * time.Minute

// RevealStore holds each new key between the create (a POST answered with a
// redirect) and the one page that shows it (the GET of the redirect's
// target). Config.Reveals takes one; the default keeps keys in this
// process's memory, which is right for one process, or for several behind a
// load balancer that sends a session's requests to the same one. A shared
// store for replicas without that affinity must keep the values in memory
// only (never on disk: no persistence, no swap), reachable over TLS, and
// delete a value when it is taken or at expires, whichever comes first.
type RevealStore interface {
	// Put holds k under id until expires. id is an opaque hash, never the
	// token of the URL.
	Put(ctx context.Context, id string, k *keys.CreatedKey, expires time.Time) error
	// Take deletes what id holds and returns it with its expiry; nil when
	// nothing is held. Two Takes of one id never both return the key.
	Take(ctx context.Context, id string) (*keys.CreatedKey, time.Time, error)
}

// maxReveals bounds the in-memory store: creating a key takes an owner or
// administrator and a database write, and each entry leaves within
// RevealTTL, so only abuse comes near it.
const maxReveals = 10000

var errRevealsFull = errors.New("too many new keys waiting for their one view")

// memoryReveals is the default RevealStore: a map under a mutex.
// Hand-written: it is a dozen lines, and a cache library would add
// eviction we do not want (an entry leaves only when taken or expired).
type memoryReveals struct {
	mu  sync.Mutex
	now func() time.Time
	m   map[string]reveal
}

type reveal struct {
	key     *keys.CreatedKey
	expires time.Time
}

func newMemoryReveals(now func() time.Time) *memoryReveals {
	return &memoryReveals{now: now, m: map[string]reveal{}}
}

func (s *memoryReveals) Put(_ context.Context, id string, k *keys.CreatedKey, expires time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	for i, r := range s.m {
		if !now.Before(r.expires) {
			delete(s.m, i)
		}
	}
	if len(s.m) >= maxReveals {
		return errRevealsFull
	}
	s.m[id] = reveal{key: k, expires: expires}
	return nil
}

func (s *memoryReveals) Take(_ context.Context, id string) (*keys.CreatedKey, time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.m[id]
	if !ok {
		return nil, time.Time{}, nil
	}
	delete(s.m, id)
	return r.key, r.expires, nil
}

// revealID is the store's key for token as seen by id: a hash that binds
// the token to the organization and user (each length-prefixed, so no two
// triples share an encoding).
func revealID(id Identity, token string) string {
	h := sha256.New()
	for _, s := range []string{id.OrganizationID, id.UserID, token} {
		_ = binary.Write(h, binary.BigEndian, uint32(len(s)))
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// hold puts a new key in the store and returns the URL of its one view.
func (h *handler) hold(ctx context.Context, id Identity, k *keys.CreatedKey) (string, error) {
	token := rand.Text() // 26 base32 characters, 128 random bits
	if err := h.reveals.Put(ctx, revealID(id, token), k, h.now().Add(RevealTTL)); err != nil {
		return "", fmt.Errorf("hold the new key %s for its view: %w", k.ID, err)
	}
	return h.cfg.Path + "/created/" + token, nil
}

// take returns the key that token holds for id, once, or nil.
func (h *handler) take(ctx context.Context, id Identity, token string) (*keys.CreatedKey, error) {
	k, expires, err := h.reveals.Take(ctx, revealID(id, token))
	if err != nil {
		return nil, fmt.Errorf("take a new key for its view: %w", err)
	}
	if k == nil || !h.now().Before(expires) {
		return nil, nil
	}
	return k, nil
}

// shownOnce is said on the view when it has nothing (any more) to show.
const shownOnce = "This link showed a new key once and cannot show it again. " +
	"If you did not copy the key, revoke it below and create another."

// created is the one view of a new key: the page with the key above the
// list, the first time; the page with shownOnce afterwards. HEAD does not
// use the view up.
func (h *handler) created(w http.ResponseWriter, r *http.Request) {
	id, ok := h.identify(w, r)
	if !ok {
		return
	}
	d := h.newPage(id)
	status, ok := h.load(w, r, d)
	if !ok {
		return
	}
	w.Header().Set("Referrer-Policy", "no-referrer")
	if d.Manage == "" && r.Method == http.MethodGet {
		k, err := h.take(r.Context(), id, r.PathValue("token"))
		if err != nil {
			h.serverError(w, r, err)
			return
		}
		if k != nil {
			d.Created = k
			h.render(w, r, status, "page.html", d)
			return
		}
	}
	d.Notice = shownOnce
	h.render(w, r, status, "page.html", d)
}

// unheld revokes a new key that could not be held for its view, so that no
// active key exists that nobody saw, and says so.
func (h *handler) unheld(w http.ResponseWriter, r *http.Request, id Identity, k *keys.CreatedKey, err error) {
	text := "The new key could not be held for its one view, so it was revoked at once and cannot be used. Try again in a minute."
	if _, rerr := h.cfg.Keys.Revoke(r.Context(), id.OrganizationID, id.UserID, k.ID); rerr != nil {
		err = errors.Join(err, fmt.Errorf("revoke the key nobody saw: %w", rerr))
		text = "The new key could not be shown. Revoke the newest key in the list (" + k.Hint + "), then try again in a minute."
	}
	h.log.ErrorContext(r.Context(), "developer keys request failed", "method", r.Method, "route", r.Pattern, "error", err)
	h.render(w, r, http.StatusServiceUnavailable, "message.html", messageData{
		Title: "Something went wrong", Text: text, Link: h.cfg.Path + "/", LinkText: "Back to Developer keys",
	})
}
