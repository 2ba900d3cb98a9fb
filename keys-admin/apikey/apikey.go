package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash/crc32"
)

const (
	// Prefix starts every developer key.
	Prefix = "svc_live_"
	// RandomLen is the number of random base62 characters after the prefix.
	RandomLen = 37
	// ChecksumLen is the number of base62 characters of the CRC32 checksum.
	ChecksumLen = 6
	// BodyLen is the number of characters after the prefix (43, as SPEC §5 says).
	BodyLen = RandomLen + ChecksumLen
	// Len is the total length of a key.
	Len = len(Prefix) + BodyLen

	alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// ErrMalformed reports a string that is not a well-formed key. Its wrapped
// messages say what is wrong and never contain the presented value.
var ErrMalformed = errors.New("malformed api key")

// Generate returns a new random key. The value must be shown to its owner
// once and then only its Hash kept.
func Generate() (string, error) {
	// Rejection sampling keeps every character uniform over the 62 symbols.
	b := make([]byte, Len)
	copy(b, Prefix)
	var buf [64]byte
	n := len(Prefix)
	for n < len(Prefix)+RandomLen {
		if _, err := rand.Read(buf[:]); err != nil {
			return "", fmt.Errorf("generate api key: %w", err)
		}
		for _, c := range buf {
			if c >= 248 { // 248 = 4*62: keep only bytes that map evenly
				continue
			}
			b[n] = alphabet[c%62]
			n++
			if n == len(Prefix)+RandomLen {
				break
			}
		}
	}
	appendChecksum(b[len(Prefix)+RandomLen:], b[:len(Prefix)+RandomLen])
	return string(b), nil
}

// appendChecksum writes the base62 CRC32 of payload into dst (ChecksumLen bytes).
func appendChecksum(dst, payload []byte) {
	sum := crc32.ChecksumIEEE(payload)
	for i := ChecksumLen - 1; i >= 0; i-- {
		dst[i] = alphabet[sum%62]
		sum /= 62
	}
}

// Validate reports whether s is a well-formed key: prefix, length, alphabet
// and checksum. The error wraps ErrMalformed and never contains s.
func Validate(s string) error {
	if len(s) != Len {
		return fmt.Errorf("%w: a key is %d characters long", ErrMalformed, Len)
	}
	if s[:len(Prefix)] != Prefix {
		return fmt.Errorf("%w: a key starts with %q", ErrMalformed, Prefix)
	}
	for i := len(Prefix); i < Len; i++ {
		if !isBase62(s[i]) {
			return fmt.Errorf("%w: a key has only letters and digits after %q", ErrMalformed, Prefix)
		}
	}
	var want [ChecksumLen]byte
	appendChecksum(want[:], []byte(s[:len(Prefix)+RandomLen]))
	if string(want[:]) != s[len(Prefix)+RandomLen:] {
		return fmt.Errorf("%w: checksum mismatch (the key was mistyped or truncated)", ErrMalformed)
	}
	return nil
}

func isBase62(c byte) bool {
	return '0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z'
}

// Hash returns the SHA-256 of the key: the only form in which a key is stored.
func Hash(key string) []byte {
	sum := sha256.Sum256([]byte(key))
	return sum[:]
}

// Hint returns a short display form of a key, "svc_live_…" and its last four
// characters, so that an owner can tell keys apart without the value.
func Hint(key string) string {
	if len(key) < 4 {
		return Prefix + "…"
	}
	return Prefix + "…" + key[len(key)-4:]
}
