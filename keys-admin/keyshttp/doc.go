// Package keyshttp is the HTTP API the settings backend mounts, behind its
// own session authentication, to create, list, revoke and roll developer
// keys. Files: handler.go (the handler, create, list, revoke, errors);
// roll.go (POST /{id}/roll, keys.Manager.Roll).
//
//	GET    /        list the organization's keys
//	POST   /        create a key: {"name", "scopes": [...], "expiresInDays"}; 201 with the value, once
//	DELETE /{id}    revoke a key
//	POST   /{id}/roll  roll a key: {"expiresInDays", "graceSeconds"}; 201 {"new": the new key with its value, once, "old": the old key}
//
// Mount it under a prefix with http.StripPrefix, e.g.
//
//	mux.Handle("/settings/developer-keys/", http.StripPrefix("/settings/developer-keys", h))
//
// Errors are JSON bodies {"statusCode": n, "message": "..."}, with these
// statuses:
//
//	400  invalid body: not one JSON object, an unknown or duplicate field, a
//	     field name in the wrong letter case, data after the object, a value
//	     of the wrong type or out of bounds (name, scopes, expiry)
//	401  not signed in (the host's IdentityFunc failed)
//	403  cross-origin request (net/http's CrossOriginProtection), or the
//	     user may not manage the organization's keys
//	404  no such endpoint, or no such key in the organization (an id that is
//	     not shaped like a key id is not echoed)
//	409  ten keys are active already, or the key is revoked, expired or
//	     rolled already
//	413  body over 16 KiB
//	415  create without Content-Type: application/json
//	500  the store failed
//
// Every response is marked no-store. State-changing requests (POST, DELETE)
// from another origin are refused with http.CrossOriginProtection (Go 1.25:
// Sec-Fetch-Site, then Origin against Host), so a page on another site cannot
// make a signed-in browser create or revoke keys.
package keyshttp
