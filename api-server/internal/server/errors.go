package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/gin-gonic/gin"
)

// errAccountNotFound: accountId names no account of the key's organization.
var errAccountNotFound = errors.New("account not found")

// handleError is the one place where errors become responses; the
// answers to a key refused (401, 403) are written by refuseKey, in auth.go
// with every other decision about the key.
func (s *Server) handleError(c *gin.Context, err error) {
	if clientGone(c.Request.Context()) {
		// The client went away (or the server is stopping): whatever failed
		// failed because of that, not because a dependency did. Nobody reads
		// the answer; the access log says 499 at info.
		c.AbortWithStatus(statusClientClosed)
		return
	}
	if s.refuseKey(c, err) { // 401 and 403 (auth.go)
		return
	}
	var fr *feedRefusal
	switch {
	case errors.As(err, &fr): // a sync token or cursor the feed cannot use (changes.go)
		s.refuse(c, fr.status, fr.msg)
	case errors.Is(err, errAccountNotFound):
		s.refuse(c, http.StatusNotFound, "account not found in the key's organization")
	case errors.Is(err, ratelimit.ErrUnavailable):
		state(c).depFail = true
		s.failures.note(c.Request.Context(), s.log, "rate limit store unavailable", err, s.now())
		s.refuse(c, http.StatusServiceUnavailable, "the protection service (rate limiting) is unavailable; reads fail closed, try again later")
	case errors.Is(err, errDatabaseDown), store.Unavailable(err):
		state(c).depFail = true
		s.failures.note(c.Request.Context(), s.log, "database unavailable", err, s.now())
		s.refuse(c, http.StatusServiceUnavailable, "the database is unavailable; reads fail closed, try again later")
	default:
		// A bug, or a failure nobody classified: never a dependency's
		// fault by default. The cause goes to the log, once, with the
		// request id; the client gets the id only.
		id := state(c).id
		s.log.LogAttrs(c.Request.Context(), slog.LevelError, "internal error",
			slog.String("request_id", id), slog.String("error", err.Error()))
		s.refuse(c, http.StatusInternalServerError, "internal error (request id "+id+")")
	}
}

// clientGone reports whether the request's own context has ended, or is
// about to: a network deadline taken from it can fire a moment before the
// context's timer does.
func clientGone(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	dl, ok := ctx.Deadline()
	return ok && !time.Now().Before(dl)
}

// statusClientClosed is nginx's 499: the client closed the request.
const statusClientClosed = 499

// refuse writes the error body of SPEC §7 and stops the pipeline: it is
// the only writer of a 4xx or a 5xx. When the request's key is still
// pending (the known ordering, before its rows), its state is checked
// first (checkKeyAlone, auth.go), so that a key no longer valid gets its
// 401 or 403 before any later step's refusal, as DESIGN §3's order says;
// only a 503, which answers nothing but "not now" and comes from a
// dependency that failed or a full admission queue, does not wait for the
// database. A refusal closes the connection (a client that is refused
// does not keep a socket for the idle timeout), and a 503 says when to
// come back.
func (s *Server) refuse(c *gin.Context, status int, message any) {
	if st := state(c); st.pending != nil && status != http.StatusServiceUnavailable {
		if !s.checkKeyAlone(c, st) {
			return // answered: 401, 403, or 503 when the database failed
		}
	}
	h := c.Writer.Header()
	h["Cache-Control"] = hdrNoStore // an error is never tagged (conditional.go)
	delete(h, "Etag")
	h.Set("Connection", "close")
	if status == http.StatusServiceUnavailable && h.Get("Retry-After") == "" {
		h.Set("Retry-After", "1")
	}
	c.AbortWithStatusJSON(status, errorBody{StatusCode: status, Message: message})
}
