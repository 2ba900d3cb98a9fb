package apikey

import (
	"crypto/sha256"
	"errors"
	"hash/crc32"
	"strings"
	"testing"
)

// zeroKey is the key whose 37 random characters are all '0'. Its checksum is
// pinned here so that a change to the format (which every client shares) fails.
const zeroKey = "svc_live_0000000000000000000000000000000000000" + "1w1XY4"

func TestZeroKeyVector(t *testing.T) {
	t.Parallel()
	if err := Validate(zeroKey); err != nil {
		t.Fatalf("Validate(zeroKey) = %v", err)
	}
	// Recompute independently: CRC32-IEEE, base62, MSB first, padded to 6.
	sum := crc32.ChecksumIEEE([]byte(zeroKey[:len(Prefix)+RandomLen]))
	var digits []byte
	for i := 0; i < ChecksumLen; i++ {
		digits = append([]byte{alphabet[sum%62]}, digits...)
		sum /= 62
	}
	if got := zeroKey[len(zeroKey)-ChecksumLen:]; got != string(digits) {
		t.Fatalf("pinned checksum %q, recomputed %q", got, digits)
	}
}

func TestGenerateValid(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 200 {
		k, err := Generate()
		if err != nil {
			t.Fatal(err)
		}
		if len(k) != Len || !strings.HasPrefix(k, Prefix) {
			t.Fatalf("generated key has wrong shape (len %d)", len(k))
		}
		if err := Validate(k); err != nil {
			t.Fatalf("generated key does not validate: %v", err)
		}
		if seen[k] {
			t.Fatal("Generate repeated a key")
		}
		seen[k] = true
	}
}

func TestValidateRejects(t *testing.T) {
	t.Parallel()
	good, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	swap := func(i int) string {
		b := []byte(good)
		if b[i] == 'a' {
			b[i] = 'b'
		} else {
			b[i] = 'a'
		}
		return string(b)
	}
	cases := map[string]struct{ key, want string }{
		"empty":          {"", "characters long"},
		"short":          {good[:Len-1], "characters long"},
		"long":           {good + "A", "characters long"},
		"wrong prefix":   {"svc_test_" + good[len(Prefix):], "starts with"},
		"bad alphabet":   {good[:20] + "-" + good[21:], "only letters and digits"},
		"typo in random": {swap(len(Prefix) + 3), "checksum"},
		"typo in sum":    {swap(Len - 1), "checksum"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := Validate(tc.key)
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("Validate = %v, want ErrMalformed", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if len(tc.key) > 12 && strings.Contains(err.Error(), tc.key[len(Prefix):]) {
				t.Error("error message contains the key")
			}
		})
	}
}

func TestEverySingleCharacterTypoIsCaught(t *testing.T) {
	t.Parallel()
	k, _ := Generate()
	for i := len(Prefix); i < Len; i++ {
		for j := 0; j < len(alphabet); j++ {
			if alphabet[j] == k[i] {
				continue
			}
			typo := k[:i] + string(alphabet[j]) + k[i+1:]
			if Validate(typo) == nil {
				t.Fatalf("typo at %d not caught", i)
			}
		}
	}
}

func TestHashAndHint(t *testing.T) {
	t.Parallel()
	a, _ := Generate()
	b, _ := Generate()
	// Stable: a copy of the key (another string, same bytes) hashes alike,
	// to the SHA-256 of the key (what every replica stores and looks up).
	want := sha256.Sum256([]byte(a))
	if len(Hash(a)) != 32 || string(Hash(a)) == string(Hash(b)) || string(Hash(strings.Clone(a))) != string(want[:]) {
		t.Fatal("Hash is not a stable 32-byte SHA-256 digest distinct per key")
	}
	h := Hint(a)
	if h != "svc_live_…"+a[Len-4:] {
		t.Fatalf("Hint = %q", h)
	}
	if strings.Contains(h, a[len(Prefix):Len-4]) {
		t.Fatal("hint reveals the random part")
	}
}

func TestScopes(t *testing.T) {
	t.Parallel()
	set, err := ParseScopes("insights:read, accounts:read,insights:read")
	if err != nil {
		t.Fatal(err)
	}
	if got := set.String(); got != "accounts:read,insights:read" {
		t.Fatalf("String = %q", got)
	}
	if !set.Has(ScopeInsightsRead) || set.Has(ScopeCampaignsRead) || set.Has("bogus") {
		t.Fatal("Has is wrong")
	}
	for _, bad := range []string{"", "accounts:write", "accounts:read,", "ACCOUNTS:READ"} {
		if _, err := ParseScopes(bad); err == nil {
			t.Errorf("ParseScopes(%q) accepted", bad)
		}
	}
	if NewScopes(AllScopes...).String() != "accounts:read,campaigns:read,insights:read" {
		t.Fatal("NewScopes(AllScopes...) is not the full set")
	}
}

func FuzzValidate(f *testing.F) {
	good, _ := Generate()
	for _, s := range []string{"", zeroKey, good, good[:Len-1], "svc_live_" + strings.Repeat("z", 43), strings.Repeat("\xff", Len)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := Validate(s)
		if err == nil {
			if len(s) != Len || !strings.HasPrefix(s, Prefix) {
				t.Fatalf("accepted %q", s)
			}
			var want [ChecksumLen]byte
			appendChecksum(want[:], []byte(s[:len(Prefix)+RandomLen]))
			if string(want[:]) != s[len(s)-ChecksumLen:] {
				t.Fatal("accepted a bad checksum")
			}
			return
		}
		if !errors.Is(err, ErrMalformed) {
			t.Fatalf("error does not wrap ErrMalformed: %v", err)
		}
		if len(s) > 16 && strings.Contains(err.Error(), s) {
			t.Fatal("error contains the input")
		}
	})
}

func BenchmarkGenerate(b *testing.B) {
	for b.Loop() {
		if _, err := Generate(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateAndHash(b *testing.B) {
	k, _ := Generate()
	b.ReportAllocs()
	for b.Loop() {
		if err := Validate(k); err != nil {
			b.Fatal(err)
		}
		_ = Hash(k)
	}
}

// FuzzKeyRoundTrip: a key made from any 37 base62 characters round-trips
// its checksum (Validate accepts it), and every one-character change of it,
// anywhere (prefix, random part, checksum), to any other byte is refused
// (issue #22).
func FuzzKeyRoundTrip(f *testing.F) {
	f.Add([]byte("0000000000000000000000000000000000000"), uint8(0), byte('x'))
	f.Add([]byte("zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"), uint8(50), byte('0'))
	f.Add([]byte{}, uint8(9), byte(0xff))
	f.Fuzz(func(t *testing.T, seed []byte, pos uint8, c byte) {
		b := make([]byte, Len)
		copy(b, Prefix)
		for i := range RandomLen {
			var v byte
			if i < len(seed) {
				v = seed[i]
			}
			b[len(Prefix)+i] = alphabet[int(v)%62]
		}
		appendChecksum(b[len(Prefix)+RandomLen:], b[:len(Prefix)+RandomLen])
		key := string(b)
		if err := Validate(key); err != nil {
			t.Fatalf("a key with its own checksum is refused: %v", err)
		}
		if Hint(key) != Prefix+"…"+key[Len-4:] {
			t.Fatalf("hint %q", Hint(key))
		}
		i := int(pos) % Len
		if b[i] == c {
			return
		}
		b[i] = c
		if err := Validate(string(b)); err == nil {
			t.Fatalf("a one-character change at %d (%q) is accepted", i, c)
		}
	})
}
