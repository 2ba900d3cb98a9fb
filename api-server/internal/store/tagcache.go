package store

import (
	"context"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"
)

// The tag material cache (PostgreSQL, issue 41's bench): a page's tag
// material, kept by page and by the organization's data version, so that a
// page read again while nothing of its organization was imported is read
// alone (it reads that version with its meta), instead of beside its
// versions statement.
//
// Why: the versions statement cost as much PostgreSQL CPU as the page
// itself. `make bench` at 1,000,000 rows, /insights offset 0, c=64:
// PostgreSQL 0.25–0.29 ms per request with it against 0.13–0.14 without
// (dd79b3e), svc-api/baseline 0.80× against a target of 0.95×.
//
// Why it is exact: the data version (the data_version column) is the id
// of the organization's newest import record, which every import that
// changes what a tag covers writes in its own transaction, under the
// organization's import lock, so the id grows in commit order. The material
// and the version it is kept under are read by one statement, in one
// snapshot, and so are a page and the version it is checked against (the
// data_version meta column of every PostgreSQL page statement): a page
// whose version is the kept one has exactly the kept material. An
// organization without import record (NULL) is not cached.

// tagCacheSize bounds the pages kept; beyond it an arbitrary one is
// dropped (a few hundred bytes each).
const tagCacheSize = 10000

// tagKey is a page: its organization, resource and parameters.
type tagKey struct {
	org string
	r   Resource
	p   VersionParams
}

// tagEntry is a page's material and the data version it was read at.
type tagEntry struct {
	version  int64
	material string
}

type tagCache struct {
	mu sync.Mutex
	m  map[tagKey]tagEntry
}

func (c *tagCache) get(k tagKey) (tagEntry, bool) {
	if c == nil {
		return tagEntry{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	return e, ok
}

func (c *tagCache) put(k tagKey, e tagEntry) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[tagKey]tagEntry)
	}
	if _, ok := c.m[k]; !ok && len(c.m) >= tagCacheSize {
		for old := range c.m {
			delete(c.m, old)
			break
		}
	}
	c.m[k] = e
}

func (c *tagCache) drop(k tagKey) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, k)
}

// cachedPage is batchReader.page when the page's material is kept: the
// page alone, which reads its organization's data version with its meta,
// in its own snapshot. When that version is the kept one, the kept material
// is exactly the page's; else (an import committed since it was kept) the
// versions statement is read after the page, and its material is the
// page's if its data version is the page's (no import committed in
// between), and kept; if not, the page goes without a tag.
func (b *batchReader) cachedPage(ctx context.Context, conn *pgxpool.Conn, kept tagEntry, q *statement, args []any,
	orgID, accountID string, out rowSink) (Meta, error) {
	rows, err := conn.Query(ctx, q.pg, args...)
	if err != nil {
		return Meta{}, err
	}
	m, n, err := scanPage(rows, b.pre, out)
	if err == nil && n == 0 {
		m, err = pgMeta(ctx, conn, orgID, accountID, b.pre)
	}
	if err != nil {
		return m, err
	}
	b.m, b.done = m, true
	if kept.matches(m) {
		b.material = kept.material
		return m, nil
	}
	b.material, err = b.cache.reread(b.key, m, func() (Meta, string, error) {
		rows, err := conn.Query(ctx, b.q.pg, b.args...)
		if err != nil {
			return Meta{}, "", err
		}
		return scanVersions(rows, nil)
	})
	return m, err
}

// matches reports whether e was kept at the data version of meta m: then
// its material is that of the page m was read with.
func (e tagEntry) matches(m Meta) bool { return m.version.Valid && m.version.Int64 == e.version }

// reread is the tag material of the page key read with meta m, when what
// was kept for it is of another data version: that of versions (the
// versions statement, read after the page) when its data version is still
// m's (no import committed in between), kept in place of the old one; else
// "" (no tag), and nothing is kept.
func (c *tagCache) reread(key tagKey, m Meta, versions func() (Meta, string, error)) (string, error) {
	vm, material, err := versions()
	if err != nil {
		return "", err
	}
	if !m.version.Valid || vm.version != m.version {
		c.drop(key)
		return "", nil
	}
	c.put(key, tagEntry{version: m.version.Int64, material: material})
	return material, nil
}

// keptSummary is Conditional for a summary whose material is kept, on a
// request without If-None-Match: the summary is read first, with pre's
// epoch and the data version in its meta; the kept material is its tag
// when the version is the kept one, else the versions statement's when its
// version is still the summary's (no import committed in between), else
// the summary goes without a tag.
func (s *Store) keptSummary(ctx context.Context, key tagKey, kept tagEntry, pre Prelude,
	skip func(Meta, string) bool, read func(*Store, Prelude) (Meta, error)) error {
	m, err := read(s, pre)
	if err != nil {
		return err
	}
	material := kept.material
	if !kept.matches(m) {
		if material, err = s.tags.reread(key, m, func() (Meta, string, error) {
			return s.Versions(ctx, key.org, key.r, key.p, nil)
		}); err != nil {
			return err
		}
	}
	skip(m, material)
	return nil
}
