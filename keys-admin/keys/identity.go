package keys

import (
	"sync"
	"time"

	"github.com/adsnap/svc/keys-admin/apikey"
)

// Identity is what never changes about a key once issued: its id, its
// organization and its scopes. It says nothing about whether the key is
// still valid.
type Identity struct {
	KeyID          string
	OrganizationID string
	Scopes         apikey.Scopes
}

// knownKey is what identityCache remembers of a key (PostgreSQL): its
// Identity and its state as of its organization's key-state epoch, read
// together (pending.go). A revoked key, or one read with no epoch, is
// never remembered.
type knownKey struct {
	Identity
	expiresAt  time.Time
	lastUsedAt time.Time // zero: never used; else as last read or queued (lastUsedWriter.mark)
	role       string    // "": no membership row
	removed    bool
	epoch      int64
	// readAt is this process's clock when the state was read from the
	// database (before the read): Known answers from it for at most
	// Recheck after that (AuthenticatorOptions.Recheck).
	readAt time.Time
}

// identityCache remembers up to about max keys (knownKey), by the
// SHA-256 of the key. It is two generations of maps: entries go into the
// current one; when that holds max/2, it becomes the previous one and the
// one before is dropped. A hit in the previous generation moves the entry
// forward, so the keys in use stay. Every operation is O(1).
type identityCache struct {
	half int

	mu   sync.Mutex
	cur  map[[32]byte]knownKey
	prev map[[32]byte]knownKey
}

func newIdentityCache(n int) *identityCache {
	half := max(n/2, 1)
	return &identityCache{half: half, cur: make(map[[32]byte]knownKey)}
}

func (c *identityCache) get(hash []byte) (knownKey, bool) {
	k := [32]byte(hash)
	c.mu.Lock()
	defer c.mu.Unlock()
	if id, ok := c.cur[k]; ok {
		return id, true
	}
	id, ok := c.prev[k]
	if ok {
		delete(c.prev, k)
		c.putLocked(k, id)
	}
	return id, ok
}

func (c *identityCache) put(hash []byte, id knownKey) {
	k := [32]byte(hash)
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.cur[k]; ok && old == id {
		return
	}
	c.putLocked(k, id)
}

func (c *identityCache) putLocked(k [32]byte, id knownKey) {
	if len(c.cur) >= c.half {
		c.prev, c.cur = c.cur, make(map[[32]byte]knownKey, c.half)
	}
	c.cur[k] = id
}

func (c *identityCache) forget(hash []byte) {
	if len(hash) != 32 {
		return
	}
	k := [32]byte(hash)
	c.mu.Lock()
	delete(c.cur, k)
	delete(c.prev, k)
	c.mu.Unlock()
}

func (c *identityCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.cur) + len(c.prev)
}
