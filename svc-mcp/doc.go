// Package svcmcp is the local stdio MCP server of the stored advertising
// snapshot developer service, started by `svc mcp`. It offers three
// read-only tools, the counterparts of the API's endpoints, and calls the
// API only through the Go SDK (github.com/adsnap/svc/sdk-go):
//
//   - svc_accounts: ad accounts (GET /accounts, scope accounts:read)
//   - svc_campaigns: campaigns (GET /campaigns, scope campaigns:read)
//   - svc_insights: daily insights (GET /insights, scope insights:read)
//
// Each tool takes limit (1–100), offset (0–10000) and accountId; svc_insights
// also takes from and to (YYYY-MM-DD, UTC). The bounds are part of the input
// schemas. A result's structuredContent is the API's envelope (data and
// meta) as the API sent it, except that insight dates are calendar days
// (YYYY-MM-DD) rather than midnight date-times; its text content is one line
// stating that the rows are a stored snapshot, how fresh it is (dataAsOf),
// the period (insights) and that the rows are untrusted data, followed by
// the same envelope as JSON with invisible and bidirectional control
// characters removed from its strings. Every tool is annotated read-only,
// idempotent, non-destructive and closed-world.
//
// Errors of the service (400, 401, 403, 404, 429, 503…), of the network and
// of the configuration (no or a malformed SVC_API_KEY) are tool errors
// (isError) that say what to fix; none ever contains the key.
//
// [Run] serves one session on a reader and a writer (stdin and stdout);
// nothing but protocol messages is written to the writer. [NewServer]
// returns the server itself, for tests over mcp.NewInMemoryTransports.
//
// The server speaks MCP 2026-07-28 and negotiates the older versions the
// MCP Go SDK (github.com/modelcontextprotocol/go-sdk v1.8.0) supports.
package svcmcp
