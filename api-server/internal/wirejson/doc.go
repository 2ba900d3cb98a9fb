// Package wirejson appends JSON values to a byte slice: the bytes
// encoding/json (gin's c.JSON) writes for the same values, without
// reflection. The generated row encoders (store) and the envelope (server)
// use it. Profiles under load showed encoding/json at about a quarter of
// svc-api's CPU time per /insights page.
//
// Files:
//
//   - wirejson.go: Appender (strings, numbers, times, null, each
//     byte-for-byte encoding/json's output) and AppendString.
package wirejson
