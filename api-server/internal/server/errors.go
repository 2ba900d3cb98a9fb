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
	switch {
	case errors.Is(err, errAccountNotFound):
		s.fail(c, http.StatusNotFound, "account not found in the key's organization")
	case errors.Is(err, ratelimit.ErrUnavailable):
		state(c).depFail = true
		s.failures.note(c.Request.Context(), s.log, "rate limit store unavailable", err, s.now())
		s.fail(c, http.StatusServiceUnavailable, "the protection service (rate limiting) is unavailable; reads fail closed, try again later")
	case errors.Is(err, errDatabaseDown), store.Unavailable(err):
		state(c).depFail = true
		s.failures.note(c.Request.Context(), s.log, "database unavailable", err, s.now())
		s.fail(c, http.StatusServiceUnavailable, "the database is unavailable; reads fail closed, try again later")
	default:
		// A bug, or a failure nobody classified: never a dependency's
		// fault by default. The cause goes to the log, once, with the
		// request id; the client gets the id only.
		id := state(c).id
		s.log.LogAttrs(c.Request.Context(), slog.LevelError, "internal error",
			slog.String("request_id", id), slog.String("error", err.Error()))
		s.fail(c, http.StatusInternalServerError, "internal error (request id "+id+")")
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

// fail writes the error body of SPEC §7 and stops the pipeline. A refusal
// closes the connection (a client that is refused does not keep a socket
// for the idle timeout), and a 503 says when to come back.
func (s *Server) fail(c *gin.Context, status int, message any) {
	h := c.Writer.Header()
	h["Cache-Control"] = hdrNoStore // an error is never tagged (conditional.go)
	delete(h, "Etag")
	h.Set("Connection", "close")
	if status == http.StatusServiceUnavailable && h.Get("Retry-After") == "" {
		h.Set("Retry-After", "1")
	}
	c.AbortWithStatusJSON(status, errorBody{StatusCode: status, Message: message})
}
