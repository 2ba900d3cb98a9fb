package svc

import (
	"compress/gzip"
	lru "container/list"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// The SDK asks for gzip only: zstd, which the service prefers, has no
// decoder in the standard library, and the SDK depends on nothing else.
// It asks explicitly (instead of relying on net/http's transparent gzip)
// so that a custom http.Client whose transport disables compression still
// gets compressed pages, and decodes the body itself.
const acceptEncoding = "gzip"

// WithPageCache keeps up to pages successful page bodies, by URL, with the
// weak ETag the service sent (DESIGN §4c). A page read again is sent with
// If-None-Match; a 304 answer (a few hundred bytes instead of the page, and
// still one request under the rate limits) is decoded from the kept body.
// Off by default; 0 turns it off. A kept page keeps the meta it was read
// with (generatedAt, dataAsOf): the tag covers the rows, not the meta.
func WithPageCache(pages int) Option {
	return func(c *config) error {
		if pages < 0 {
			return fmt.Errorf("svc: WithPageCache: pages must not be negative, got %d", pages)
		}
		c.cache = nil
		if pages > 0 {
			c.cache = &pageCache{max: pages, byURL: make(map[string]*lru.Element), order: lru.New()}
		}
		return nil
	}
}

// pageCache is a least-recently-used set of page bodies by URL.
type pageCache struct {
	mu    sync.Mutex
	max   int
	byURL map[string]*lru.Element
	order *lru.List // of *cachedPage, most recently used first
}

// cachedPage is a body kept with its tag.
type cachedPage struct {
	url, etag string
	body      []byte
}

// get returns the page kept for url, or nil (c may be nil).
func (c *pageCache) get(url string) *cachedPage {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byURL[url]
	if !ok {
		return nil
	}
	c.order.MoveToFront(e)
	return e.Value.(*cachedPage)
}

// put keeps body with its weak tag etag for url (c may be nil; a body
// without a tag is not kept, and forgets what was kept).
func (c *pageCache) put(url, etag string, body []byte) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byURL[url]; ok {
		c.order.Remove(e)
		delete(c.byURL, url)
	}
	if etag == "" {
		return
	}
	c.byURL[url] = c.order.PushFront(&cachedPage{url: url, etag: etag, body: body})
	for c.order.Len() > c.max {
		old := c.order.Back()
		c.order.Remove(old)
		delete(c.byURL, old.Value.(*cachedPage).url)
	}
}

// errBadEncoding: the answer names a content encoding the SDK did not ask for.
var errBadEncoding = errors.New("the response has a content encoding the client did not ask for")

// readBody reads a success body, decoded from its Content-Encoding (gzip,
// or none), at most limit bytes once decoded (more: limit+1 are returned).
func readBody(resp *http.Response, limit int64) ([]byte, error) {
	var r io.Reader = resp.Body
	switch ce := strings.TrimSpace(resp.Header.Get("Content-Encoding")); {
	case ce == "" || strings.EqualFold(ce, "identity") || resp.Uncompressed:
	case strings.EqualFold(ce, "gzip"):
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("gzip body: %w", err)
		}
		defer zr.Close()
		r = zr
	default:
		return nil, fmt.Errorf("%w (%q)", errBadEncoding, ce)
	}
	return io.ReadAll(io.LimitReader(r, limit+1))
}
