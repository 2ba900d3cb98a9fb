// Package server is the read-only HTTP API (New, NewHandlers): gin with an
// explicit middleware list, endpoints declared as values, one function
// that serves them, and one file per step of the request pipeline.
//
// # The request pipeline
//
// Each endpoint of the API is a value of the endpoint table (endpoints.go:
// its path, scope, query parameters, read and notes), and one function,
// serve (serve.go), serves them all, running the steps of DESIGN §3 in
// this order, top to bottom:
//
//  1. Request id, panic recovery, access log, and the headers of every
//     response: edge.go (begin, recover, accessLog, headers), the
//     middleware of every path.
//  2. Credentials in the URL or the query string, organization overrides in
//     the query or a header, two Authorization headers: 400, guard.go
//     (screen on every path, then guard on the API).
//  3. Per-IP limit: 429, limits.go.
//  4. Bearer key missing, malformed, unknown, revoked or expired: 401,
//     auth.go (bearer, lookUp, authenticated).
//  5. Per-key and per-organization limits: 429, limits.go. Admission
//     follows (admit.go): at most MaxInFlight requests past the limiter,
//     in arrival order.
//  6. Issuer no longer an owner or admin, scope missing: 403, auth.go
//     (authorize).
//  7. Query validation: 400 with every problem (package query).
//  8. The rows (readRows, the only source of rows, which checks the key
//     before it gives them), and accountId not in the key's organization:
//     404.
//  9. 200 with the envelope (respond).
//
// Steps 3 to 5 run in one of two orderings, which serve shows side by
// side: the sequential one (lookUpThenLimit) for a key this process has
// not seen, and the known one (limitKnownKey) for a key it resolved
// before, whose state is then read with its rows on PostgreSQL
// (store.Prelude, keys.Pending). The comment above shortcut in limits.go
// explains both, and the one answer in which they differ.
//
// Where can a request get 401? Only in auth.go, which holds every decision
// that answers 401 or 403: errors.go's handleError hands those errors to
// auth.go's refuseKey. The key check cannot be skipped for a key still
// pending: refuse (errors.go), the only writer of a 4xx or 5xx, checks it
// before any other refusal (a 503 excepted), and readRows before any rows;
// TestEveryEndpointChecksTheKey sends refused keys to every endpoint of
// the table.
//
// The query string is inspected once for credentials (screen and guard,
// whose verdicts the access log reuses) and parsed once by step 7.
//
// # Files
//
//   - state.go: reqState, what the pipeline learns about a request, and the
//     response headers set without an allocation each.
//   - endpoints.go: the endpoint table, its reads, and Store, the
//     interface those reads call; serve.go: serve, readRows (which also
//     traces and counts each read) and respond.
//   - edge.go, guard.go, limits.go, auth.go, admit.go: the steps above.
//   - summary.go: the page of GET /insights/summary, the store's groups
//     (one currency and one level an item) with their ratios;
//     summary_answers.go: the answers on the wire (names, previous, change,
//     the ranking's note; issue 46).
//   - freshness.go: GET /insights/freshness, the last import (an endpoint
//     value with its own body).
//     (one currency and one level an item) with their ratios.
//   - changes.go: GET /insights/changes's read (a first sync, or the
//     changes since a sync token, paged by cursors) and its envelope;
//     synctoken.go: its tokens and cursors, opaque and bound to the
//     organization by an HMAC (Config.TokenSecret, or the store's
//     generated secret).
//   - encode.go: the pooled, reflection-free encoding of a page; wire.go
//     the envelope's meta and the error body.
//   - errors.go: the one mapping of errors to answers (handleError) and
//     the one writer of them (refuse).
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
//   - observe.go: metrics and traces of a request (the reads': readDone);
//     accesslog.go the access log's own writer.
//   - compress.go: gzhttp around the API (zstd, then gzip, from 1 KiB;
//     DESIGN §4c); conditional.go: the weak ETag of a 200 and the 304 of a
//     matching If-None-Match, decided on the store's data versions (read
//     through readRows, endpoint.tagged).
//   - openapi.go: the OpenAPI document; reference.go: the API reference
//     page at /developers/api (package reference); routes.go: New,
//     NewHandlers and the
//     routes; server.go: Config and Server.
//
// The /developers/ download site is package downloads, mounted by
// NewHandlers when Config.DownloadsDir is set.
package server
