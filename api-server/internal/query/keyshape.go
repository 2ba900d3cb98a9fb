package query

import (
	"hash/crc32"
	"unsafe"
)

// The developer key format of keys-admin/apikey (DESIGN §5): KeyMarker, then
// 43 base62 characters, 37 random and a 6-character base62 CRC32 (IEEE) of
// everything before it. It is restated here, not imported, so that the guard
// can find a key's 43 characters without its prefix (a bare secret), which
// apikey has no function for; TestKeyShapedAgreesWithApikey ties the two.
const (
	keyBody     = 43
	keyRandom   = 37
	keyChecksum = 6
	// maxRun is the longest run of base62 characters KeyShaped checks
	// window by window (each window costs a CRC of 37 bytes); a longer run
	// counts as key-shaped. No legitimate value is that long (accountId is
	// at most 128).
	maxRun = 512
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// markerCRC is the CRC32 of KeyMarker, from which every key's checksum goes on.
var markerCRC = crc32.ChecksumIEEE([]byte(KeyMarker))

// KeyShaped reports whether s holds something that could be a developer key:
// the key prefix in any letter case, or a bare 43-character key body whose
// checksum is right (one random string in about 5·10¹⁰ passes it), or a run
// of more than maxRun base62 characters. It does not decode s; callers pass
// every decoding they care about (Inspect does). It does not allocate.
func KeyShaped(s string) bool {
	if containsFold(s, KeyMarker) {
		return true
	}
	run := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && isBase62(s[i]) {
			run++
			continue
		}
		if run >= keyBody && bareKeyIn(s[i-run:i]) {
			return true
		}
		run = 0
	}
	return false
}

// bareKeyIn reports whether some 43-character window of the base62 run r is
// a key body with a valid checksum.
func bareKeyIn(r string) bool {
	if len(r) > maxRun {
		return true
	}
	for i := 0; i+keyBody <= len(r); i++ {
		if validBody(r[i : i+keyBody]) {
			return true
		}
	}
	return false
}

// validBody reports whether the 43 base62 characters of b end in the
// checksum of KeyMarker followed by the first 37.
func validBody(b string) bool {
	// unsafe: a read-only view of the string's bytes, so that the check
	// allocates nothing on the request path.
	sum := crc32.Update(markerCRC, crc32.IEEETable, unsafe.Slice(unsafe.StringData(b), keyRandom))
	for i := keyBody - 1; i >= keyRandom; i-- {
		if b[i] != base62[sum%62] {
			return false
		}
		sum /= 62
	}
	return true
}

func isBase62(c byte) bool {
	return '0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z'
}

// URLHoldsKey reports whether any reading of s (the raw text, decoded once,
// twice, …, as Inspect reads a query) is key-shaped, or s is encoded past
// every reading Inspect makes.
func URLHoldsKey(s string) bool {
	for range maxDecodes {
		if KeyShaped(s) {
			return true
		}
		d := lenientUnescape(s)
		if d == s {
			return false
		}
		s = d
	}
	return true
}
