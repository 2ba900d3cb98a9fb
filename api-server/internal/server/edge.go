package server

// DESIGN §3 step 1, the edge of every request: its id (begin), panic
// recovery (recover), the access log (accessLog) and the headers every
// response carries (headers).

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/adsnap/svc/api-server/internal/accesslog"
	"github.com/adsnap/svc/api-server/internal/query"
	"github.com/gin-gonic/gin"
)

// begin gives the request its id.
func (s *Server) begin(c *gin.Context) {
	st := &reqState{start: time.Now()}
	// A client's id is echoed and logged only when short, plain and not
	// shaped like a key; otherwise the request gets an id of its own.
	if id := c.GetHeader("X-Request-Id"); query.AcceptRequestID(id) {
		st.id = id
	} else {
		var b [8]byte
		_, _ = rand.Read(b[:])
		st.id = hex.EncodeToString(b[:])
	}
	c.Set(stateKey, st)
	st.setHeader(c, hdrRequestID, "X-Request-Id", st.id)
	// GET requests carry no body; bound whatever is sent.
	if c.Request.Body != nil {
		c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, 4<<10)
	}
	c.Next()
}

// headerBytes is about what the request's header block weighs on the wire.
func headerBytes(r *http.Request) int {
	n := len(r.Method) + len(r.RequestURI) + len(r.Host) + 16
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}

func (s *Server) headers(c *gin.Context) {
	h := c.Writer.Header()
	h["Cache-Control"] = hdrNoStore
	h["X-Content-Type-Options"] = hdrNosniff
	if s.hsts {
		h["Strict-Transport-Security"] = hdrHSTS
	}
	if strings.HasPrefix(c.Request.URL.Path, "/api/") {
		h["Ratelimit-Policy"] = s.policyHdr
	}
	c.Next()
}

func (s *Server) recover(c *gin.Context) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.ErrorContext(c.Request.Context(), "panic", "request_id", state(c).id, "panic", fmt.Sprint(v))
			if !c.Writer.Written() {
				s.refuse(c, http.StatusInternalServerError, "internal error")
			}
			c.Abort()
		}
	}()
	c.Next()
}

// accessLog writes one line per request. It never logs a header, and logs
// the query string only when it held no credential.
func (s *Server) accessLog(c *gin.Context) {
	c.Next()
	st := state(c)
	if st.depFail {
		return // counted in the failure's line, once a second (onceASecond)
	}
	status := c.Writer.Status()
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	if !s.log.Enabled(c.Request.Context(), level) {
		return
	}
	l := accesslog.Line{RequestID: st.id, Method: c.Request.Method, Path: c.Request.URL.Path, Status: status,
		LatencyMS: float64(time.Since(st.start).Microseconds()) / 1000, Bytes: c.Writer.Size(), ClientIP: c.ClientIP()}
	// What screen and guard found is not looked for again (reqState).
	if st.redact || !st.screened && query.URLHoldsKey(l.Path) {
		l.Path = "[redacted: the URL held a key]"
	}
	if raw := c.Request.URL.RawQuery; raw != "" {
		if st.redact || !st.guarded && query.Inspect(raw) == query.CredentialInQuery || !st.screened && query.URLHoldsKey(raw) {
			l.QueryRedacted = true
		} else {
			l.Query = raw
		}
	}
	if p := st.principal; p != nil {
		l.KeyID, l.OrgID = p.KeyID, p.OrganizationID
	}
	if s.accessOut != nil && level == slog.LevelInfo {
		s.writeAccessLine(&l, time.Now())
		return
	}
	s.log.LogAttrs(c.Request.Context(), level, "request", l.Attrs()...)
}
