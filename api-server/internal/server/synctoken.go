package server

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"sync"

	"github.com/adsnap/svc/api-server/internal/store"
)

// The changes feed's sync tokens and cursors (DESIGN §4b): opaque,
// organization-bound and tamper-evident. Each is base64url (no padding) of
// a version byte, a kind byte, the fields as varints and length-prefixed
// strings, then the first 16 bytes of HMAC-SHA256 over a domain label, the
// requesting organization's id and all the bytes before the MAC. A token
// presented by another organization, or changed in any bit, fails the MAC
// and is answered 400; whatever a token holds, the store reads the
// requesting organization's rows only (the MAC is integrity, not the
// access check).

// tokenVersion is the layout's version; kinds tell a token from a cursor.
const (
	tokenVersion = 1
	kindToken    = 't'
	kindCursor   = 'c'
	macBytes     = 16
	tokenDomain  = "svc insights changes v1\x00"
	// minTokenSecret is the shortest Config.TokenSecret accepted.
	minTokenSecret = 16
)

// errBadToken: a since token or a cursor this server did not issue for the
// requesting organization (or a damaged one).
var errBadToken = errors.New("not a token of this organization")

// syncCursor is a cursor's content: the sync's window and the last change of
// the page it follows.
type syncCursor struct {
	First     bool
	Lo, Hi    uint64
	AfterTxID uint64
	AfterSeq  int64
	AfterDate string
	AfterID   string
}

// tokenKeys holds the HMAC key: Config.TokenSecret, or the store's
// generated one, read once on first use (a failed read is tried again).
type tokenKeys struct {
	mu     sync.Mutex
	key    []byte
	source func(context.Context) ([]byte, error)
}

// secretSource is a store that keeps a generated token secret.
type secretSource interface {
	TokenSecret(ctx context.Context) ([]byte, error)
}

// newTokenKeys holds secret, or when it is empty st's generated secret
// (nil source when st keeps none).
func newTokenKeys(secret []byte, st any) *tokenKeys {
	k := &tokenKeys{}
	if len(secret) > 0 {
		k.key = secret
	} else if ss, ok := st.(secretSource); ok {
		k.source = ss.TokenSecret
	}
	return k
}

func (k *tokenKeys) get(ctx context.Context) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.key != nil {
		return k.key, nil
	}
	if k.source == nil {
		return nil, errors.New("no sync token secret: set --token-secret or migrate the database")
	}
	key, err := k.source(ctx)
	if err != nil {
		return nil, err
	}
	k.key = key
	return key, nil
}

func mac(key []byte, org string, body []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(tokenDomain))
	h.Write([]byte(org))
	h.Write([]byte{0})
	h.Write(body)
	return h.Sum(nil)[:macBytes]
}

func seal(key []byte, org string, body []byte) string {
	return base64.RawURLEncoding.EncodeToString(append(body, mac(key, org, body)...))
}

// open checks s's MAC for org and kind and returns its fields' bytes.
func open(key []byte, org string, kind byte, s string) ([]byte, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) < 2+macBytes {
		return nil, errBadToken
	}
	body, sum := b[:len(b)-macBytes], b[len(b)-macBytes:]
	if !hmac.Equal(sum, mac(key, org, body)) || body[0] != tokenVersion || body[1] != kind {
		return nil, errBadToken
	}
	return body[2:], nil
}

// encodeToken is the sync token that starts the next sync at watermark lo.
func encodeToken(key []byte, org string, lo uint64) string {
	return seal(key, org, binary.AppendUvarint([]byte{tokenVersion, kindToken}, lo))
}

// decodeToken returns a token's watermark.
func decodeToken(key []byte, org, s string) (uint64, error) {
	b, err := open(key, org, kindToken, s)
	if err != nil {
		return 0, err
	}
	lo, n := binary.Uvarint(b)
	if n <= 0 || n != len(b) {
		return 0, errBadToken
	}
	return lo, nil
}

func encodeCursor(key []byte, org string, c syncCursor) string {
	b := []byte{tokenVersion, kindCursor, 0}
	if c.First {
		b[2] = 1
	}
	b = binary.AppendUvarint(b, c.Lo)
	b = binary.AppendUvarint(b, c.Hi)
	b = binary.AppendUvarint(b, c.AfterTxID)
	b = binary.AppendVarint(b, c.AfterSeq)
	b = binary.AppendUvarint(b, uint64(len(c.AfterDate)))
	b = append(b, c.AfterDate...)
	b = binary.AppendUvarint(b, uint64(len(c.AfterID)))
	b = append(b, c.AfterID...)
	return seal(key, org, b)
}

func decodeCursor(key []byte, org, s string) (syncCursor, error) {
	b, err := open(key, org, kindCursor, s)
	if err != nil {
		return syncCursor{}, err
	}
	r := tokenReader{b: b}
	c := syncCursor{First: r.byte() == 1}
	c.Lo, c.Hi, c.AfterTxID = r.uvarint(), r.uvarint(), r.uvarint()
	c.AfterSeq = r.varint()
	c.AfterDate, c.AfterID = r.str(), r.str()
	if r.bad || len(r.b) != 0 || c.Hi == 0 {
		return syncCursor{}, errBadToken
	}
	return c, nil
}

// tokenReader reads a token's fields; bad is set on any malformed field.
type tokenReader struct {
	b   []byte
	bad bool
}

func (r *tokenReader) byte() byte {
	if len(r.b) == 0 {
		r.bad = true
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *tokenReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *tokenReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *tokenReader) str() string {
	n := r.uvarint()
	if r.bad || n > uint64(len(r.b)) {
		r.bad = true
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// storeParams is the store's page of a cursor (limit: the rows to read).
func (c syncCursor) storeParams(limit int) store.ChangesParams {
	return store.ChangesParams{Limit: limit, First: c.First, Lo: c.Lo, Hi: c.Hi,
		AfterTxID: c.AfterTxID, AfterSeq: c.AfterSeq, AfterDate: c.AfterDate, AfterID: c.AfterID}
}
