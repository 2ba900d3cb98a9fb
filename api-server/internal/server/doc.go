// Package server is the read-only HTTP API (New, NewHandlers): gin with an
// explicit middleware list, one file per step of the request pipeline.
//
// # The request pipeline
//
// Every GET /api/v1/developer/accounts|campaigns|insights,
// /insights/summary and /insights/changes run the steps of
// DESIGN §3 in this order (routes.go lists them as the middleware chain):
//
//  1. Request id, panic recovery, access log, and the headers of every
//     response: edge.go (begin, recover, accessLog, headers).
//  2. Credentials in the URL or the query string, organization overrides in
//     the query or a header, two Authorization headers: 400, guard.go
//     (screen on every path, then guard on the API).
//  3. Per-IP limit: 429, limits.go (protect).
//  4. Bearer key missing, malformed, unknown, revoked or expired: 401,
//     auth.go (authenticate, authenticated, refuseKey).
//  5. Per-key and per-organization limits: 429, limits.go (protect).
//     Admission follows (admit.go): at most MaxInFlight requests past
//     the limiter, in arrival order.
//  6. Issuer no longer an owner or admin, scope missing: 403, auth.go
//     (authorize, settle, confirm).
//  7. Query validation: 400 with every problem, handlers.go (page).
//  8. accountId not in the key's organization: 404, handlers.go (found).
//  9. 200 with the envelope: handlers.go (list, the one generic list
//     handler, and respond).
//
// Where can a request get 401? Only in auth.go, which holds every decision
// that answers 401 or 403: errors.go's handleError hands those errors to
// auth.go's refuseKey, and no other function writes either status.
//
// Steps 3 to 5 run in one of two orderings (protect for a key this process
// has not seen, protectKnown for one it has); the comment on protect in
// limits.go explains both and the one answer in which they differ.
//
// The query string is inspected once for credentials (screen and guard,
// whose verdicts the access log reuses) and parsed once by step 7.
//
// # Files
//
//   - state.go: reqState, what the pipeline learns about a request, and the
//     response headers set without an allocation each.
//   - edge.go, guard.go, limits.go, auth.go, admit.go: the steps above.
//   - summary.go: GET /insights/summary, steps 7 to 9 over the store's
//     groups (one currency and one level an item), paged like the lists.
//   - changes.go: GET /insights/changes, steps 7 to 9 over the store's
//     changes feed (a first sync, or the changes since a sync token, paged
//     by cursors); synctoken.go: its tokens and cursors, opaque and bound
//     to the organization by an HMAC (Config.TokenSecret, or the store's
//     generated secret).
//   - handlers.go: steps 7 to 9; encode.go the pooled, reflection-free
//     encoding of a page; wire.go the envelope's meta and the error body.
//   - errors.go: the one mapping of errors to answers (handleError, fail).
//   - breaker.go: the breakers of the limit store and the database (503 at
//     once while a dependency fails).
//   - refusals.go: per-IP refusals remembered until the bucket has room.
//   - clientip.go: the per-IP bucket of a client (IPv6 by prefix);
//     connlimit.go: the per-IP connection cap (LimitListener).
//   - limiternodes.go: a Redis Cluster limiter breaks per master, not
//     through breaker.go; primaryready.go: the store's writable-primary
//     check in /readyz; drain.go: /readyz 503 while serve drains.
//   - health.go: /healthz and /readyz (terse; the detail for the metrics
//     listener), and the failure log written once a second.
//   - observe.go: metrics and traces of a request; accesslog.go the access
//     log's own writer.
//   - openapi.go: the OpenAPI document; routes.go: New, NewHandlers and the
//     routes; server.go: Config and Server.
//
// The /developers/ download site is package downloads, mounted by
// NewHandlers when Config.DownloadsDir is set.
package server
