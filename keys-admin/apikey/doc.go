// Package apikey defines the developer key format: generation, parsing with
// checksum validation, hashing for storage, a display hint, and scopes.
//
// A key is "svc_live_" followed by 43 characters of the base62 alphabet
// [0-9A-Za-z]: 37 random characters and a 6-character checksum, the CRC32
// (IEEE) of everything before it, written in base62, most significant digit
// first, zero-padded. Any client can therefore reject a mistyped key without a
// network call. The package uses the standard library only.
//
// Files:
//
//   - apikey.go: the key format (Generate, Validate, Hash, Hint);
//   - scope.go: Scope, Scopes and their parsing.
package apikey
