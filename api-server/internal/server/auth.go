package server

// DESIGN §3 steps 4 and 6, authentication and authorization: every decision
// that answers 401 or 403 is in this file (bearer, lookUp, authenticated,
// refuseKey, authorize, checkKeyWithRows, checkKeyAlone, acceptKey). A
// key's state is checked before anything else is refused (refuse, errors.go)
// and before rows are given (readRows, serve.go).

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

// bearer is the key of the Authorization header ("" when there is none or
// its scheme is not Bearer) and, when this process resolved that key
// before, its pending lookup (keys.Pending: its state is read with the
// rows, checkKeyWithRows); it touches no database.
func (s *Server) bearer(c *gin.Context) (string, *keys.Pending) {
	scheme, presented, ok := strings.Cut(c.GetHeader("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", nil
	}
	presented = strings.TrimSpace(presented)
	if s.known != nil {
		if pd, ok := s.known.Known(presented); ok {
			return presented, pd
		}
	}
	return presented, nil
}

// lookUp is step 4's lookup of a key that bearer did not find pending,
// in the database now; "" (no Bearer key) is keys.ErrUnauthenticated
// without a lookup. lookUpThenLimit (limits.go) calls it before its one
// limiter call, and answers through authenticated.
func (s *Server) lookUp(c *gin.Context, presented string) (*keys.Principal, error) {
	if presented == "" {
		return nil, keys.ErrUnauthenticated
	}
	ctx := c.Request.Context()
	lctx, cancel := context.WithTimeout(ctx, s.dbWait)
	p, err := s.keys.Lookup(lctx, presented)
	cancel()
	s.noteDatabase(ctx, err)
	return p, err
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
		s.refuse(c, http.StatusUnauthorized, "missing, invalid, revoked or expired API key; send a valid key in the Authorization header (Bearer scheme)")
	case errors.Is(err, keys.ErrIssuerNotAdmin):
		s.refuse(c, http.StatusForbidden, "the key's issuer is no longer an owner or administrator of the organization")
	case errors.As(err, &scopeErr):
		s.refuse(c, http.StatusForbidden, "the API key lacks the scope this endpoint requires ("+string(scopeErr.Scope)+")")
	case errors.Is(err, keys.ErrScopeMissing): // not from authorize: no scope to name
		s.refuse(c, http.StatusForbidden, "the API key lacks the scope this endpoint requires")
	default:
		return false
	}
	return true
}

// authorize is step 6. A key looked up now is checked whole here; for a
// pending key only the scope is (its issuer is checked with the rows,
// checkKeyWithRows), and a missing scope is refused through refuse, which
// checks the key's state first, for 401 before 403.
func (s *Server) authorize(c *gin.Context, st *reqState, scope apikey.Scope) bool {
	st.scope = scope
	if st.pending != nil {
		if !st.pending.Scopes.Has(scope) {
			s.handleError(c, &keys.ScopeError{Scope: scope})
			return false
		}
		return true
	}
	if err := st.principal.Authorize(scope); err != nil {
		s.handleError(c, err)
		return false
	}
	return true
}

// prelude is the request's pending key for the store (store.Prelude: its
// state is read in the rows' statement), or nil.
func (st *reqState) prelude() store.Prelude {
	if st.pending != nil {
		return st.pending
	}
	return nil
}

// checkKeyWithRows checks a pending key with the state its rows' statement
// read (readErr is the read's; when it failed, readRows answers that, and
// the key stays pending until refuse): 401 for a key no longer valid, 403
// for an issuer no longer an admin. When the statement read a key-state
// epoch other than the one this process remembers the key's state with
// (the key or its organization's membership changed since), the state is
// read again, alone, before the answer. It returns false when it has
// answered.
func (s *Server) checkKeyWithRows(c *gin.Context, st *reqState, readErr error) bool {
	pd := st.pending
	if pd == nil || readErr != nil {
		return true
	}
	if pd.Stale() {
		return s.checkKeyAlone(c, st)
	}
	st.pending = nil
	p, err := pd.Principal()
	return s.acceptKey(c, st, p, err)
}

// checkKeyAlone reads a pending key's state on its own (one round trip, or
// none when it is the one remembered; keys.Pending.Resolve), for a request
// refused before its rows (refuse) or whose rows read a moved epoch. It
// returns false when it has answered.
func (s *Server) checkKeyAlone(c *gin.Context, st *reqState) bool {
	pd := st.pending
	if pd == nil {
		return true
	}
	st.pending = nil
	ctx, cancel := s.dbContext(c)
	p, err := pd.Resolve(ctx)
	cancel()
	return s.acceptKey(c, st, p, err)
}

// acceptKey records a pending key's answer once its state is read: the
// principal, or 401, 403 (or 503 when the database failed). It returns
// false when it has answered.
func (s *Server) acceptKey(c *gin.Context, st *reqState, p *keys.Principal, err error) bool {
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
