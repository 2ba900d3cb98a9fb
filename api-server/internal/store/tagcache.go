package store

import (
	"context"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The tag material cache (PostgreSQL, issue 41's bench): a page's tag
// material, kept by page and by the organization's data version, so that a
// page read again while nothing of its organization was imported is read
// alone, with that version, instead of beside its versions statement.
//
// Why: the versions statement cost as much PostgreSQL CPU as the page
// itself. `make bench` at 1,000,000 rows, /insights offset 0, c=64:
// PostgreSQL 0.25–0.29 ms per request with it against 0.13–0.14 without
// (dd79b3e), svc-api/baseline 0.80× against a target of 0.95×.
//
// Why it is exact: the data version (queries/postgres/data_version.sql) is
// the id of the organization's newest import record, which every import
// that changes what a tag covers writes in its own transaction, under the
// organization's import lock, so the id grows in commit order. The material
// and the version it is kept under are read by one statement, in one
// snapshot; a page read with a version equal to the one kept is at least as
// new as that material (the version is read before the page), so a tag is
// never newer than the rows it is sent with: at worst older, which costs a
// client one 200, never a stale 304. An organization without import record
// (NULL) is not cached.

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

var qDataVersion = query("data_version")

// cachedPage is batchReader.page when the page's material is kept: the
// organization's data version, then the page, in one batch. When the
// version is the kept one the kept material is the page's; else the
// versions statement is read after the page, and its material is the
// page's if its data version is still the one read before the page (no
// import committed in between); if not, the page goes without a tag.
func (b *batchReader) cachedPage(ctx context.Context, conn *pgxpool.Conn, kept tagEntry, q *statement, args []any,
	orgID, accountID string, out rowSink) (Meta, error) {
	var batch pgx.Batch
	batch.Queue(qDataVersion.pg, orgID)
	batch.Queue(q.pg, args...)
	br := conn.SendBatch(ctx, &batch)
	var version *int64
	err := br.QueryRow().Scan(&version)
	var (
		m Meta
		n int
	)
	if err == nil {
		var rows pgx.Rows
		if rows, err = br.Query(); err == nil {
			m, n, err = scanPage(rows, b.pre, out)
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err == nil && n == 0 {
		m, err = pgMeta(ctx, conn, orgID, accountID, b.pre)
	}
	if err != nil {
		return m, err
	}
	b.m, b.done = m, true
	if version != nil && *version == kept.version {
		b.material = kept.material
		return m, nil
	}
	// An import committed since the material was kept.
	b.material = ""
	rows, err := conn.Query(ctx, b.q.pg, b.args...)
	if err != nil {
		return m, err
	}
	_, material, now, err := scanVersions(rows, nil)
	if err != nil {
		return m, err
	}
	if version != nil && now != nil && *now == *version {
		b.material = material
		b.cache.put(b.key, tagEntry{version: *now, material: material})
	} else {
		b.cache.drop(b.key)
	}
	return m, nil
}
