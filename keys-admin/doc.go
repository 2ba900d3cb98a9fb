// Package keysadmin is the root of the keys-admin module: the authority on
// developer keys for the Snapshot Developer Service.
//
// The module's packages:
//
//   - apikey: the key format (generate, validate with checksum, hash, hint) and scopes; standard library only.
//   - database: open PostgreSQL or SQLite by URL, and run embedded migrations under the migrator's lock.
//   - keys: the Manager: Create, List, Revoke with every rule of SPEC §3 and §5, an audit trail; and
//     the Authenticator, the api-server's per-request side: Lookup resolves a presented key in one
//     SQL round trip, Known and Pending (pending.go, headed by the protocol's contract) confirm a
//     key resolved before in the round trip of the caller's own data.
//   - keyshttp: the http.Handler the settings backend mounts behind its own session.
//   - keyspage: the "Developer keys" settings section as a server-rendered http.Handler (html/template,
//     embedded assets, no JavaScript needed) that a host mounts under its own settings path and layout.
//   - cli: the keys-admin operator command (cmd/keys-admin).
package keysadmin
