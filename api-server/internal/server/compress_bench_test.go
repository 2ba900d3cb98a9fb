package server_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/adsnap/svc/api-server/internal/server"
)

// BenchmarkCompress measures a 100-row /insights page through the handler
// over PostgreSQL (benchHandler) as sent identity, zstd and gzip, and
// reports the bytes sent per page (B/page) and the identity body's size
// over them (ratio): the CPU that compression adds to the hot path is the
// difference of the ns/op.
//
//	go test -run '^$' -bench Compress -benchmem ./internal/server/
func BenchmarkCompress(b *testing.B) {
	h := benchHandler(b)
	identity := 0
	for _, enc := range []string{"identity", "zstd", "gzip"} {
		b.Run(enc, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, server.BasePath+"/insights?limit=100", nil)
			req.Header.Set("Authorization", "Bearer svc_live_bench")
			req.Header.Set("Accept-Encoding", enc)
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
				n = w.Body.Len()
			}
			if enc == "identity" {
				identity = n
			} else if got := w0(b, h, req); got != enc {
				b.Fatalf("Content-Encoding %q, want %q", got, enc)
			}
			b.ReportMetric(float64(n), "B/page")
			if identity > 0 {
				b.ReportMetric(float64(identity)/float64(n), "ratio")
			}
		})
	}
}

// w0 is the Content-Encoding of one answer to req.
func w0(b *testing.B, h http.Handler, req *http.Request) string {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w.Header().Get("Content-Encoding")
}

// BenchmarkCompressBody is the CPU that compression adds to one answer,
// without the database: a 44 KB page body (BenchmarkCompress's) written
// through the API's gzhttp settings as identity, zstd and gzip.
//
//	go test -run '^$' -bench CompressBody -benchmem ./internal/server/
func BenchmarkCompressBody(b *testing.B) {
	page := httptest.NewRecorder()
	benchHandler(b).ServeHTTP(page, func() *http.Request {
		req := httptest.NewRequest(http.MethodGet, server.BasePath+"/insights?limit=100", nil)
		req.Header.Set("Authorization", "Bearer svc_live_bench")
		return req
	}())
	body := page.Body.Bytes()
	h, err := server.Compressed(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(body)
	}))
	if err != nil {
		b.Fatal(err)
	}
	for _, enc := range []string{"identity", "zstd", "gzip"} {
		b.Run(enc, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.Header.Set("Accept-Encoding", enc)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
			}
		})
	}
}

// BenchmarkNotModified is a 100-row /insights page revalidated with its
// tag through the handler over PostgreSQL: the versions statement and the
// 304, without the page's query (issue 43's target: p50 ≤ 1 ms).
//
//	go test -run '^$' -bench NotModified -benchmem ./internal/server/
func BenchmarkNotModified(b *testing.B) {
	h := benchHandler(b)
	req := httptest.NewRequest(http.MethodGet, server.BasePath+"/insights?limit=100", nil)
	req.Header.Set("Authorization", "Bearer svc_live_bench")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	tag := w.Header().Get("ETag")
	if w.Code != http.StatusOK || tag == "" {
		b.Fatalf("status %d, ETag %q", w.Code, tag)
	}
	req.Header.Set("If-None-Match", tag)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusNotModified {
			b.Fatalf("status %d", w.Code)
		}
	}
}
