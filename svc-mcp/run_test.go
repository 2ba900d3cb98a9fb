package svcmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	svc "github.com/adsnap/svc/sdk-go"
)

// Requests piped into the server: the legacy handshake followed by
// tools/list and tools/call, and a single request of the 2026-07-28
// protocol, which needs no handshake.
const (
	legacyRequests = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"svc_accounts","arguments":{"limit":2}}}
`
	modernRequest = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"svc_insights","arguments":{"from":"2026-11-01","to":"2026-11-19"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"pipe","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}
`
)

// responses decodes the JSON-RPC messages on out by id.
func responses(t *testing.T, out string) map[string]map[string]any {
	t.Helper()
	got := map[string]map[string]any{}
	for line := range strings.Lines(out) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout holds something other than a JSON-RPC message: %q", line)
		}
		id, _ := json.Marshal(m["id"])
		got[string(id)] = m
	}
	return got
}

// checkAnswered checks that every id in ids has a successful response.
func checkAnswered(t *testing.T, out string, ids ...string) map[string]map[string]any {
	t.Helper()
	got := responses(t, out)
	for _, id := range ids {
		r, ok := got[id]
		if !ok {
			t.Errorf("no response to request %s on stdout:\n%s", id, out)
			continue
		}
		if r["error"] != nil {
			t.Errorf("request %s failed: %v", id, r["error"])
		}
	}
	return got
}

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRunAnswersBeforeEOF pipes requests into Run and closes the input
// right after them: every request must still be answered. go-sdk v1.8.0
// alone drops the answers (see transport.go).
func TestRunAnswersBeforeEOF(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		input string
		ids   []string
	}{
		"legacy handshake": {legacyRequests, []string{"1", "2", `"three"`}},
		"2026-07-28":       {modernRequest, []string{"7"}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for range 20 { // the drop was a race; repeat
				api := newTestAPI(t)
				// Slow the API down so that the input is long closed
				// before the answer exists.
				release := make(chan struct{})
				time.AfterFunc(20*time.Millisecond, func() { close(release) })
				for _, ep := range []string{"/accounts", "/insights"} {
					api.respond(ep, &apiResponse{status: 200, delay: release,
						body: `{"data":[],"meta":{"source":"stored_snapshot","liveMetaRequest":false,"limit":2,"offset":0,"nextOffset":null,"returned":0,"generatedAt":null,"dataAsOf":"2026-11-20T06:00:00Z","note":"n"}}`})
				}
				pr, pw := io.Pipe()
				go func() {
					_, _ = io.WriteString(pw, tc.input)
					pw.Close()
				}()
				var out lockedBuffer
				err := Run(t.Context(), pr, &out, slog.New(slog.DiscardHandler),
					WithSiteURL(api.siteURL()), WithSDKOptions(svc.WithAPIKey(testKey)))
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				checkAnswered(t, out.String(), tc.ids...)
				if t.Failed() {
					return
				}
			}
		})
	}
}

func TestRunStopsWithContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	defer pw.Close()
	done := make(chan error, 1)
	go func() { done <- Run(ctx, pr, io.Discard, nil) }()
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Run returned nil after its context was cancelled, want the context's error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context was cancelled")
	}
}

// TestInflight checks the request counting, including a response counted
// before its request.
func TestInflight(t *testing.T) {
	t.Parallel()
	f := newInflight()
	f.note([]byte(`{"jsonrpc":"2.0","id":1,"method":"a"}`), true, +1)
	f.note([]byte(`[{"jsonrpc":"2.0","id":"x","method":"b"},{"jsonrpc":"2.0","method":"notifications/c"}]`), true, +1)
	f.note([]byte(`{"jsonrpc":"2.0","id":2.0,"result":{}}`), false, -1)   // answered before it is counted
	f.note([]byte(`{"jsonrpc":"2.0","id":9,"method":"ping"}`), false, -1) // a request of the server: not an answer
	f.note([]byte(`{"jsonrpc":"2.0","id":"listen:0","method":"subscriptions/listen","params":{}}`), true, +1)
	if got := f.wait(t.Context(), 0); got != 2 {
		t.Fatalf("open = %d, want 2", got)
	}
	f.note([]byte(`{"jsonrpc":"2.0","id":2,"method":"a"}`), true, +1)
	f.note([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`+"\n"), false, -1)
	f.note([]byte(`[{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"m"}}]`), false, -1)
	if got := f.wait(t.Context(), time.Second); got != 0 {
		t.Fatalf("open = %d, want 0", got)
	}
}

// TestBinaryAnswersBeforeEOF runs the built command as `printf '<request>\n'
// | svc-mcp` does.
func TestBinaryAnswersBeforeEOF(t *testing.T) {
	t.Parallel()
	api := newTestAPI(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	env := []string{"SVC_API_KEY=" + testKey, "SVC_SITE_URL=" + api.siteURL()}

	out, _ := runBinary(t, ctx, legacyRequests, env...)
	got := checkAnswered(t, out, "1", "2", `"three"`)
	if r := got[`"three"`]; r != nil {
		if res := r["result"].(map[string]any); res["isError"] == true {
			t.Errorf("tools/call failed: %v", res["content"])
		}
	}

	out, _ = runBinary(t, ctx, modernRequest, env...)
	checkAnswered(t, out, "7")

	// Without a key: still an answer, as a tool error.
	out, stderr := runBinary(t, ctx, modernRequest, "SVC_SITE_URL="+api.siteURL())
	res := checkAnswered(t, out, "7")["7"]["result"].(map[string]any)
	if res["isError"] != true || !strings.Contains(res["content"].([]any)[0].(map[string]any)["text"].(string), "SVC_API_KEY is not set") {
		t.Errorf("result without a key = %v, want a tool error about SVC_API_KEY", res)
	}
	if !strings.Contains(stderr, "SVC_API_KEY is not set") {
		t.Errorf("stderr does not log the missing key:\n%s", stderr)
	}
}
