package svc

import (
	"errors"
	"strings"
	"testing"
)

func TestAPIKeyChecksumVector(t *testing.T) {
	t.Parallel()
	const random = "0000000000000000000000000000000000000"
	if len(random) != apiKeyRandomLen {
		t.Fatalf("vector has %d random characters, want %d", len(random), apiKeyRandomLen)
	}
	want := base62Checksum(APIKeyPrefix + random)
	if got := apiKeyChecksum(APIKeyPrefix + random); got != want {
		t.Errorf("apiKeyChecksum = %q, independent computation = %q", got, want)
	}
	if got := APIKeyPrefix + random + want; got != zeroKey {
		t.Errorf("key from the vector = %q, hard-coded %q", got, zeroKey)
	}
	if len(zeroKey) != 52 || APIKeyLength != 52 {
		t.Errorf("key length = %d, APIKeyLength = %d, want 52", len(zeroKey), APIKeyLength)
	}
	if err := ValidateAPIKey(zeroKey); err != nil {
		t.Errorf("ValidateAPIKey(zeroKey) = %v", err)
	}
}

func TestValidateAPIKeyGenerated(t *testing.T) {
	t.Parallel()
	for range 200 {
		key := newTestKey(t)
		if err := ValidateAPIKey(key); err != nil {
			t.Fatalf("ValidateAPIKey(generated key) = %v", err)
		}
	}
}

func TestValidateAPIKeyRejects(t *testing.T) {
	t.Parallel()
	good := newTestKey(t)
	// flip changes one character of the random part, keeping the charset.
	flip := func(k string, i int) string {
		c := byte('A')
		if k[i] == 'A' {
			c = 'B'
		}
		return k[:i] + string(c) + k[i+1:]
	}
	tests := []struct {
		name, key, want string
	}{
		{"empty", "", "empty"},
		{"trailing newline", good + "\n", "white space"},
		{"wrong prefix", "svc_test_" + good[9:], `must start with "svc_live_"`},
		{"too short", good[:51], "52 characters long, not 51"},
		{"too long", good + "0", "52 characters long, not 53"},
		{"base64url character", good[:20] + "-" + good[21:], "A-Z, a-z and 0-9"},
		{"mistyped random part", flip(good, 15), "checksum does not match"},
		{"mistyped checksum", flip(good, 50), "checksum does not match"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := ValidateAPIKey(tt.key)
			if !errors.Is(err, ErrInvalidAPIKey) {
				t.Fatalf("ValidateAPIKey = %v, want an error wrapping ErrInvalidAPIKey", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
			if len(tt.key) > 20 && strings.Contains(err.Error(), tt.key[9:30]) {
				t.Errorf("error %q contains part of the key", err)
			}
		})
	}
}
