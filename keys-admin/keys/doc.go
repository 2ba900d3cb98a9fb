// Package keys is the authority on developer keys:
//
//   - service.go: Manager creates, lists and revokes keys under the rules of
//     SPEC §3 and §5 and records every change for audit (the keys-admin
//     command, the settings handlers, svc-api's import and demo);
//     organizations.go: the host platform's organizations and members;
//     models.go: the tables as bun models; migrations/: their migrations,
//     the key-state epochs included;
//   - roll.go: Manager.Roll replaces a key by a new one with a grace
//     period for the old (DESIGN §6), and how a roll counts against the
//     active-key limit;
//   - lookup.go: Authenticator, the api-server's per-request side: Lookup
//     resolves a presented key in one round trip;
//   - pending.go: the per-request key protocol, headed by its contract:
//     Known and Pending confirm a key this process resolved before in the
//     round trip of the caller's own data; identity.go: what it remembers;
//   - lastused.go: the last-used writer (Authenticator.Run);
//   - errors.go: the errors, exported values and types tested with
//     errors.Is and errors.As.
package keys
