// Package keyformat is the developer key format of DESIGN §5 as sdk-go's
// packages share it: package svc checks a key with it, and svctest makes
// keys with it, so the SDK holds one copy of the checksum. It restates
// keys-admin/apikey, the authority, so that sdk-go needs nothing but the
// standard library; svc's tests check it against a hard-coded key and an
// independent computation, and e2e's TestKeyMakerMatchesKeysAdmin against
// the keys keys-admin generates.
package keyformat

import "hash/crc32"

const (
	// Prefix is the fixed prefix of every developer key.
	Prefix = "svc_live_"
	// RandomLen is the number of random base62 characters after Prefix.
	RandomLen = 37
	// ChecksumLen is the length of the base62 checksum that ends a key.
	ChecksumLen = 6
	// Length is the length of a key.
	Length = len(Prefix) + RandomLen + ChecksumLen
	// Alphabet is the base62 alphabet of the random part and the checksum.
	Alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// Checksum returns the checksum of the key text that precedes it (the prefix
// and the random part): CRC32 (IEEE) in base62, most significant digit
// first, left-padded with '0' to ChecksumLen characters.
func Checksum(s string) string {
	n := crc32.ChecksumIEEE([]byte(s))
	var out [ChecksumLen]byte
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = Alphabet[n%62]
		n /= 62
	}
	return string(out[:])
}
