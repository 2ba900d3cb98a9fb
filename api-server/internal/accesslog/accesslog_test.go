package accesslog

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"testing"
	"time"
)

// lineOf is l as slog's JSONHandler writes it at info, at t.
func lineOf(t *testing.T, l *Line, at time.Time) []byte {
	t.Helper()
	var buf bytes.Buffer
	r := slog.NewRecord(at, slog.LevelInfo, "request", 0)
	r.AddAttrs(l.Attrs()...)
	if err := slog.NewJSONHandler(&buf, nil).Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// keysInOrder is the top-level keys of the JSON object line, in order.
func keysInOrder(t *testing.T, line []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %q", line)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		keys = append(keys, k.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
	}
	return keys
}

// FuzzAccessLineMatchesSlog: the access line the server writes itself
// (Line.AppendJSON) is one line of JSON that decodes to what slog's
// JSONHandler writes for the same attributes (same keys in the same
// order, same values), whatever the strings hold (quotes, control bytes,
// HTML, invalid UTF-8) and whatever the latency.
func FuzzAccessLineMatchesSlog(f *testing.F) {
	f.Add("0123456789abcdef", "/api/v1/developer/accounts", "limit=50", "key_1", "org_a", 200, 1.234, 1400, int64(1_700_000_000_123_456_789), false)
	f.Add(`"\x00<script>&`, "/a\\b\xff", "", "", "", 404, 0.0, 0, int64(0), false)
	f.Add("id", "[redacted: the URL held a key]", "", "", "", 400, 1e-7, 12, int64(-1), true)
	f.Add("id", "/p", "q=\u2028", "k", "o", 499, 123456789.5, 1<<40, int64(math.MaxInt64), false)
	f.Fuzz(func(t *testing.T, id, path, query, keyID, orgID string, status int, latency float64, n int, nanos int64, redacted bool) {
		if math.IsNaN(latency) || math.IsInf(latency, 0) {
			latency = 0
		}
		at := time.Unix(0, nanos).UTC()
		if at.Year() < 0 || at.Year() > 9999 {
			at = time.Unix(0, 0)
		}
		l := Line{RequestID: id, Method: "GET", Path: path, Status: status, LatencyMS: latency, Bytes: n,
			ClientIP: "192.0.2.1", Query: query, QueryRedacted: redacted, KeyID: keyID, OrgID: orgID}
		ours, theirs := l.AppendJSON(nil, at), lineOf(t, &l, at)
		if bytes.Count(ours, []byte("\n")) != 1 || ours[len(ours)-1] != '\n' {
			t.Fatalf("not one line: %q", ours)
		}
		var a, b map[string]any
		if err := json.Unmarshal(ours, &a); err != nil {
			t.Fatalf("ours is not JSON: %v: %q", err, ours)
		}
		if err := json.Unmarshal(theirs, &b); err != nil {
			t.Fatalf("slog's is not JSON: %v: %q", err, theirs)
		}
		ka, kb := keysInOrder(t, ours), keysInOrder(t, theirs)
		if len(ka) != len(kb) {
			t.Fatalf("keys %v, slog's %v", ka, kb)
		}
		for i := range ka {
			if ka[i] != kb[i] {
				t.Fatalf("keys %v, slog's %v", ka, kb)
			}
			if x, y := a[ka[i]], b[ka[i]]; x != y {
				t.Fatalf("%s: %#v, slog's %#v\nours:  %s\nslog's: %s", ka[i], x, y, ours, theirs)
			}
		}
	})
}

// BenchmarkLine: a typical /accounts line through slog's JSONHandler
// (LogAttrs, as the server wrote it before) and through AppendJSON.
//
//	go test -run '^$' -bench Line -benchmem ./internal/accesslog/
func BenchmarkLine(b *testing.B) {
	l := Line{RequestID: "4cb4b8f32777c9d3", Method: "GET", Path: "/api/v1/developer/accounts", Status: 200, LatencyMS: 1.234,
		Bytes: 1081, ClientIP: "127.0.0.1", Query: "limit=50", KeyID: "key_rcUB6NR5r8hYsDim21Mc", OrgID: "org_01"}
	b.Run("slog", func(b *testing.B) {
		log := slog.New(slog.NewJSONHandler(io.Discard, nil))
		b.ReportAllocs()
		for b.Loop() {
			log.LogAttrs(context.Background(), slog.LevelInfo, "request", l.Attrs()...)
		}
	})
	b.Run("AppendJSON", func(b *testing.B) {
		buf := make([]byte, 0, 512)
		b.ReportAllocs()
		for b.Loop() {
			buf = l.AppendJSON(buf[:0], time.Now())
			_, _ = io.Discard.Write(buf)
		}
	})
}
