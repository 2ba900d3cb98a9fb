package server

// DESIGN §3 steps 4 and 6, authentication and authorization: every decision
// that answers 401 or 403 is in this file (authenticate, authenticated,
// refuseKey, authorize, settle, confirm).

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/gin-gonic/gin"
)

// authenticate is step 4's lookup of the bearer key: a key whose identity
// this process resolved before comes back pending (pd; its state is read
// with the page, settle), any other is looked up in the database now (p).
// A missing or non-Bearer Authorization header is keys.ErrUnauthenticated
// without a lookup. protect (limits.go) calls it before its one limiter
// call, and answers through authenticated.
func (s *Server) authenticate(c *gin.Context) (p *keys.Principal, pd *keys.Pending, err error) {
	scheme, presented, ok := strings.Cut(c.GetHeader("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil, nil, keys.ErrUnauthenticated
	}
	presented = strings.TrimSpace(presented)
	if s.known != nil {
		if pd, ok := s.known.Known(presented); ok {
			return nil, pd, nil
		}
	}
	ctx := c.Request.Context()
	lctx, cancel := context.WithTimeout(ctx, s.dbWait)
	p, err = s.keys.Lookup(lctx, presented)
	cancel()
	s.noteDatabase(ctx, err)
	return p, nil, err
}

// authenticated answers step 4 for a key looked up now (authenticate): the
// lookup's error (401, or 503 for a database failure), or the principal
// recorded with its expiry header. It returns false when it has answered.
func (s *Server) authenticated(c *gin.Context, st *reqState, p *keys.Principal, err error) bool {
	if err != nil {
		s.handleError(c, err)
		return false
	}
	st.principal = p
	st.setHeader(c, hdrKeyExpires, KeyExpiresHeader, p.ExpiresAt.UTC().Format(time.RFC3339))
	return true
}

// refuseKey writes the answer to a key refused, and reports whether err
// was one: 401 for a key missing, malformed, unknown, revoked or expired
// (one message, DESIGN §3 step 4), 403 for an issuer no longer an owner or
// admin or a scope missing (step 6). handleError calls it first; no other
// function answers 401 or 403.
func (s *Server) refuseKey(c *gin.Context, err error) bool {
	var scopeErr *keys.ScopeError
	switch {
	case errors.Is(err, keys.ErrUnauthenticated):
		c.Header("WWW-Authenticate", `Bearer realm="svc"`)
		s.fail(c, http.StatusUnauthorized, "missing, invalid, revoked or expired API key; send a valid key in the Authorization header (Bearer scheme)")
	case errors.Is(err, keys.ErrIssuerNotAdmin):
		s.fail(c, http.StatusForbidden, "the key's issuer is no longer an owner or administrator of the organization")
	case errors.As(err, &scopeErr):
		s.fail(c, http.StatusForbidden, "the API key lacks the scope this endpoint requires ("+string(scopeErr.Scope)+")")
	case errors.Is(err, keys.ErrScopeMissing): // not from authorize: no scope to name
		s.fail(c, http.StatusForbidden, "the API key lacks the scope this endpoint requires")
	default:
		return false
	}
	return true
}

// authorize is step 6. For a pending key (protectKnown) the scope is
// checked here and the issuer with the page (settle); a missing scope
// reads the key's state first (confirm), for 401 before 403.
func (s *Server) authorize(scope apikey.Scope) gin.HandlerFunc {
	return func(c *gin.Context) {
		st := state(c)
		st.scope = scope
		if st.pending != nil {
			if st.pending.Scopes.Has(scope) || s.confirm(c) {
				c.Next()
			}
			return
		}
		if err := st.principal.Authorize(scope); err != nil {
			s.handleError(c, err)
			return
		}
		c.Next()
	}
}

// prelude is the request's pending key lookup for the store, or nil.
func (s *Server) prelude(c *gin.Context) store.Prelude {
	if pd := state(c).pending; pd != nil {
		return pd
	}
	return nil
}

// settle reads the pending key lookup that went with the page (pageErr is
// the page's; when it failed, found answers it): 401 for a key no longer
// valid, 403 for an issuer no longer an admin. When the page's statement
// read a key-state epoch other than the one this process remembers the
// key's state with (the key or its organization's membership changed
// since), the state is read again, alone, before the answer. It returns
// false when it has answered.
func (s *Server) settle(c *gin.Context, pageErr error) bool {
	st := state(c)
	pd := st.pending
	if pd == nil || pageErr != nil {
		return true
	}
	if pd.Stale() {
		return s.confirm(c)
	}
	st.pending = nil
	p, err := pd.Principal()
	return s.settled(c, st, p, err)
}

// confirm reads a pending key lookup on its own, for a request refused
// before its page (a missing scope, a bad query), so that the answer is
// the one the steps give in order: 401, then 403, then 400. It returns
// false when it has answered.
func (s *Server) confirm(c *gin.Context) bool {
	st := state(c)
	pd := st.pending
	if pd == nil {
		return true
	}
	st.pending = nil
	ctx, cancel := s.dbContext(c)
	p, err := pd.Resolve(ctx)
	cancel()
	return s.settled(c, st, p, err)
}

func (s *Server) settled(c *gin.Context, st *reqState, p *keys.Principal, err error) bool {
	s.noteDatabase(c.Request.Context(), err)
	if s.metrics != nil {
		keyLookupMetric(s.metrics, err)
	}
	if !s.authenticated(c, st, p, err) {
		return false
	}
	if err := p.Authorize(st.scope); err != nil {
		s.handleError(c, err)
		return false
	}
	return true
}
