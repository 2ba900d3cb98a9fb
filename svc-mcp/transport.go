package svcmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxDrainWait bounds how long [Run] keeps answering requests after its
// input has reached end of file, so that a request the SDK never answers
// cannot keep the process alive. It exceeds the SDK's 15 s request timeout.
const MaxDrainWait = 30 * time.Second

// Why this file exists: go-sdk v1.8.0's jsonrpc2 connection stops writing
// as soon as its reader reports end of file (inFlightState.shuttingDown
// returns ErrServerClosing once readErr is set, and readIncoming cancels the
// requests in flight). `printf '<request>\n' | svc mcp` therefore printed
// nothing. The reader below holds end of file back until every request read
// so far has been answered on out, which the writer below observes.

// inflight counts, per JSON-RPC id, the requests read minus the responses
// written. A response may be written before its request is counted (the
// scanner runs beside the SDK's decoder), so counts may go negative for a
// moment; the set is settled when every count is zero.
type inflight struct {
	mu      sync.Mutex
	open    map[string]int
	changed chan struct{} // closed and replaced on every change
}

func newInflight() *inflight {
	return &inflight{open: make(map[string]int), changed: make(chan struct{})}
}

func (f *inflight) add(id string, delta int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n := f.open[id] + delta; n == 0 {
		delete(f.open, id)
	} else {
		f.open[id] = n
	}
	close(f.changed)
	f.changed = make(chan struct{})
}

// wait blocks until every request has been answered, ctx is done or max has
// passed. It reports how many requests were still open.
func (f *inflight) wait(ctx context.Context, max time.Duration) int {
	timer := time.NewTimer(max)
	defer timer.Stop()
	for {
		f.mu.Lock()
		open, changed := f.pending(), f.changed
		f.mu.Unlock()
		if open == 0 {
			return 0
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return open
		case <-timer.C:
			return open
		}
	}
}

// pending counts the requests not yet answered; f.mu must be held.
func (f *inflight) pending() int {
	n := 0
	for _, c := range f.open {
		if c > 0 {
			n += c
		}
	}
	return n
}

// message holds the fields that tell a JSON-RPC request from a response.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
}

// note applies delta for every request (delta +1) or response (delta -1)
// with an id in raw, a JSON-RPC message or batch.
func (f *inflight) note(raw []byte, wantRequests bool, delta int) {
	raw = bytes.TrimSpace(raw)
	var msgs []message
	if len(raw) > 0 && raw[0] == '[' {
		if json.Unmarshal(raw, &msgs) != nil {
			return
		}
	} else {
		var m message
		if json.Unmarshal(raw, &m) != nil {
			return
		}
		msgs = []message{m}
	}
	for _, m := range msgs {
		if m.Method != nil && *m.Method == methodListen {
			continue
		}
		id, ok := canonicalID(m.ID)
		if ok && (m.Method != nil) == wantRequests {
			f.add(id, delta)
		}
	}
}

// methodListen is the one request of the 2026-07-28 protocol that is not
// answered until the client goes away: the server keeps it open to send
// notifications, so end of file must not wait for it.
const methodListen = "subscriptions/listen"

// canonicalID returns the id as the SDK writes it back: strings as they
// are, numbers as integers when they are integral. Null or absent ids are
// not ids.
func canonicalID(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return "s:" + s, true
	}
	n, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return "", false
	}
	if n == float64(int64(n)) {
		return "n:" + strconv.FormatInt(int64(n), 10), true
	}
	return "n:" + strconv.FormatFloat(n, 'g', -1, 64), true
}

// drainingReader passes in through to the SDK and copies it to a scanner
// that counts the requests. On end of file it waits for their answers
// before returning io.EOF.
type drainingReader struct {
	ctx      context.Context
	in       io.Reader
	inflight *inflight
	max      time.Duration
	logger   *slog.Logger

	pw        *io.PipeWriter
	scanned   chan struct{} // closed when the scanner has stopped
	closeOnce sync.Once
}

func newDrainingReader(ctx context.Context, in io.Reader, f *inflight, max time.Duration, logger *slog.Logger) *drainingReader {
	pr, pw := io.Pipe()
	r := &drainingReader{ctx: ctx, in: in, inflight: f, max: max, logger: logger, pw: pw, scanned: make(chan struct{})}
	go func() {
		defer close(r.scanned)
		dec := json.NewDecoder(pr)
		for {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				// End of input, or input the SDK will reject as well:
				// stop counting, and make further copies fail at once.
				pr.CloseWithError(errStopScanning)
				return
			}
			f.note(raw, true, +1)
		}
	}()
	return r
}

var errStopScanning = errors.New("svcmcp: request scanner stopped")

// Read implements io.Reader.
func (r *drainingReader) Read(p []byte) (int, error) {
	n, err := r.in.Read(p)
	if n > 0 {
		// Returns once the scanner has consumed the bytes, or at once
		// when it has stopped.
		_, _ = r.pw.Write(p[:n])
	}
	if errors.Is(err, io.EOF) {
		r.pw.Close()
		<-r.scanned
		if open := r.inflight.wait(r.ctx, r.max); open > 0 {
			r.logger.Warn("input closed; giving up on requests still unanswered", "requests", open)
		}
	}
	return n, err
}

// Close stops the scanner. It does not close in, which Run does not own.
func (r *drainingReader) Close() error {
	r.closeOnce.Do(func() { r.pw.CloseWithError(io.ErrClosedPipe) })
	return nil
}

// answerWriter writes the SDK's messages to out and counts the responses
// once they have been written. It does not close out.
type answerWriter struct {
	w        io.Writer
	inflight *inflight
}

// Write implements io.Writer. The SDK writes one message (or batch) per
// call.
func (a *answerWriter) Write(p []byte) (int, error) {
	n, err := a.w.Write(p)
	if err == nil {
		a.inflight.note(p, false, -1)
	}
	return n, err
}

// Close implements io.Closer without closing out.
func (a *answerWriter) Close() error { return nil }

// logProtocol logs every request at debug level with the protocol version
// it uses: the negotiated one for initialize, the per-request one of the
// 2026-07-28 protocol otherwise.
func logProtocol(logger *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if !logger.Enabled(ctx, slog.LevelDebug) {
				return res, err
			}
			version := ""
			if ir, ok := res.(*mcp.InitializeResult); ok && ir != nil {
				version = ir.ProtocolVersion
			} else if p := req.GetParams(); p != nil && !reflect.ValueOf(p).IsNil() {
				version, _ = p.GetMeta()[mcp.MetaKeyProtocolVersion].(string)
			}
			logger.DebugContext(ctx, "mcp request", "method", method, "protocolVersion", version, "error", err)
			return res, err
		}
	}
}
