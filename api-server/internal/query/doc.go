// Package query parses and validates the query string of the list endpoints
// (SPEC §4, DESIGN §4) and recognises credentials and organization overrides
// in a request (DESIGN §3 step 2). It is pure: no I/O, fuzzed.
//
// Files:
//
//   - query.go: Parse (step 7: every problem listed), Inspect (credential
//     names and organization overrides in the query) and OrgHeader;
//   - summary.go, summaryopts.go: the summary's level and groupBy, and its
//     answers (sort, top, compareFrom/compareTo, status, having; issue 46);
//   - id.go: IDPattern and ValidID, the one identifier pattern of a query's
//     accountId and of every id an imported document holds (snapshot);
//   - changes.go: ParseChanges, the query of GET /insights/changes (since,
//     cursor, limit; accountId, from and to refused);
//   - guard.go: ScreenURL (every path), GuardAPI (step 2 on the API) and
//     AcceptRequestID;
//   - keyshape.go: KeyShaped and URLHoldsKey, a developer key recognised in
//     any reading of a URL, without allocating.
package query
