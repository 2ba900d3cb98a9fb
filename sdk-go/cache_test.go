package svc

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestPageCacheAndGzip: the client asks for gzip and decodes it, even over
// a transport that disables net/http's own compression; with
// WithPageCache a page read again is sent with its weak tag, and the
// service's 304 is answered from the kept body; a strong tag is not kept.
func TestPageCacheAndGzip(t *testing.T) {
	const page = `{"data":[{"id":"acc_1","accountName":"One","currency":"EUR","timezone":"UTC","isActive":true}],` +
		`"meta":{"source":"stored_snapshot","limit":50,"offset":0,"nextOffset":null,"returned":1,"dataAsOf":"2026-11-20T00:00:00Z"}}`
	var requests, notModified atomic.Int32
	tag := `W/"v1"`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.Header.Get("Accept-Encoding") != "gzip" {
			t.Errorf("Accept-Encoding %q, want gzip", r.Header.Get("Accept-Encoding"))
		}
		w.Header().Set("ETag", tag)
		if r.Header.Get("If-None-Match") == tag {
			notModified.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(page))
		zw.Close()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(b.Bytes())
	}))
	defer srv.Close()
	hc := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	c, err := NewClient(WithAPIKey(zeroKey), WithSiteURL(srv.URL), WithHTTPClient(hc), WithPageCache(8))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		p, err := c.Accounts.List(t.Context(), nil)
		if err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
		if len(p.Data) != 1 || p.Data[0].AccountName != "One" {
			t.Fatalf("read %d: %+v", i, p.Data)
		}
	}
	if requests.Load() != 3 || notModified.Load() != 2 {
		t.Errorf("%d requests, %d answered 304; want 3 and 2", requests.Load(), notModified.Load())
	}
	// Without the cache, no If-None-Match is sent; a strong tag is never kept.
	tag = `"strong"`
	c, _ = NewClient(WithAPIKey(zeroKey), WithSiteURL(srv.URL), WithPageCache(8))
	for range 2 {
		if _, err := c.Accounts.List(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
	}
	if notModified.Load() != 2 {
		t.Errorf("a strong tag was revalidated")
	}
	if _, err := NewClient(WithAPIKey(zeroKey), WithPageCache(-1)); err == nil || !strings.Contains(err.Error(), "WithPageCache") {
		t.Errorf("WithPageCache(-1): %v", err)
	}
}
