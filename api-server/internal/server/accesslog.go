package server

import (
	"sync"
	"time"

	"github.com/adsnap/svc/api-server/internal/accesslog"
)

var linePool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// writeAccessLine writes l at info to the access log's writer.
func (s *Server) writeAccessLine(l *accesslog.Line, t time.Time) {
	bp := linePool.Get().(*[]byte)
	b := l.AppendJSON((*bp)[:0], t)
	_, _ = s.accessOut.Write(b)
	if cap(b) <= 8<<10 {
		*bp = b[:0]
		linePool.Put(bp)
	}
}
