package server

import (
	"net/http"
	"strconv"
	"sync"

	"github.com/adsnap/svc/api-server/internal/wirejson"
	"github.com/gin-gonic/gin"
)

// The list responses are encoded without reflection into one pooled buffer
// per response: the rows by the store's generated encoders (store/gen), the
// meta here, both through wirejson, which writes encoding/json's bytes.
// encode_test.go checks the output against encoding/json, byte for byte.

// jsonContentType is gin's for c.JSON.
const jsonContentType = "application/json; charset=utf-8"

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

// writeJSON sends b, built by append, with c.JSON's status and header.
// Content-Length is set so that net/http writes the body in one piece
// instead of 4 KiB chunks (a write system call each).
func writeJSON(c *gin.Context, b []byte) {
	h := c.Writer.Header()
	h["Content-Type"] = hdrJSON
	h["Content-Length"] = []string{strconv.Itoa(len(b))}
	c.Status(http.StatusOK)
	_, _ = c.Writer.Write(b)
}

// appendMeta encodes m as encoding/json does.
func appendMeta(b []byte, m *meta) []byte {
	a := wirejson.Appender{B: b, OK: true}
	a.Raw(`{"source":`)
	a.Str(m.Source)
	a.Raw(`,"liveMetaRequest":`)
	a.Bool(m.LiveMetaRequest)
	a.Raw(`,"limit":`)
	a.Int(int64(m.Limit))
	a.Raw(`,"offset":`)
	a.Int(int64(m.Offset))
	a.Raw(`,"nextOffset":`)
	if m.NextOffset == nil {
		a.Null()
	} else {
		a.Int(int64(*m.NextOffset))
	}
	a.Raw(`,"returned":`)
	a.Int(int64(m.Returned))
	a.Raw(`,"generatedAt":`)
	a.Str(m.GeneratedAt)
	a.Raw(`,"dataAsOf":`)
	a.Str(m.DataAsOf)
	a.Raw(`,"note":`)
	a.Str(m.Note)
	a.Raw(`}`)
	return a.B
}
