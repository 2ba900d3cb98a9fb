package svc

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/adsnap/svc/sdk-go/internal/keyformat"
)

// These rules mirror the keys-admin apikey package, re-implemented (in
// internal/keyformat, which svctest's key maker shares) so that the SDK has
// no dependency beyond the standard library.
const (
	// APIKeyPrefix is the fixed prefix of every developer key.
	APIKeyPrefix = keyformat.Prefix
	// APIKeyLength is the length of a developer key: the prefix, 37 random
	// base62 characters and a 6-character base62 CRC32 checksum.
	APIKeyLength = keyformat.Length

	apiKeyRandomLen   = keyformat.RandomLen
	apiKeyChecksumLen = keyformat.ChecksumLen
	base62Alphabet    = keyformat.Alphabet
)

// ErrMissingAPIKey is returned by [NewClient] when no key was given.
var ErrMissingAPIKey = errors.New("no api key")

// ErrInvalidAPIKey is wrapped by every error that reports a malformed key.
// Such errors never contain the key itself.
var ErrInvalidAPIKey = errors.New("invalid api key")

// ValidateAPIKey checks the format and the checksum of a developer key
// without any network call, so that a mistyped or truncated key is rejected
// before it is ever sent. The error wraps [ErrInvalidAPIKey] and never
// contains the key.
func ValidateAPIKey(key string) error {
	bad := func(why string) error {
		return fmt.Errorf("svc: %w: %s", ErrInvalidAPIKey, why)
	}
	switch {
	case key == "":
		return bad("the key is empty")
	case strings.TrimSpace(key) != key:
		return bad("the key has leading or trailing white space")
	case !strings.HasPrefix(key, APIKeyPrefix):
		return bad(fmt.Sprintf("the key must start with %q", APIKeyPrefix))
	case len(key) != APIKeyLength:
		return bad(fmt.Sprintf("the key must be %d characters long, not %d", APIKeyLength, len(key)))
	}
	body := key[len(APIKeyPrefix):]
	for i := 0; i < len(body); i++ {
		if strings.IndexByte(base62Alphabet, body[i]) < 0 {
			return bad(fmt.Sprintf("the key may contain only the characters A-Z, a-z and 0-9 after %q", APIKeyPrefix))
		}
	}
	split := len(key) - apiKeyChecksumLen
	if apiKeyChecksum(key[:split]) != key[split:] {
		return bad("the checksum does not match; the key is mistyped or incomplete")
	}
	return nil
}

// apiKeyChecksum returns the checksum of the key text that precedes it.
func apiKeyChecksum(s string) string { return keyformat.Checksum(s) }

// apiKey holds the key inside a closure: fmt prints a func as an address,
// even through unexported fields and bad verbs, so no reflection-based
// printing can reach the key; its methods redact it where fmt calls them.
type apiKey func() string

func newAPIKey(v string) apiKey { return func() string { return v } }

const redacted = "[redacted]"

func (apiKey) String() string   { return redacted }
func (apiKey) GoString() string { return redacted }

func (apiKey) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, redacted) }
