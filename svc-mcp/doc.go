// Package svcmcp is the local stdio MCP server of the stored advertising
// snapshot developer service, started by `svc mcp`. It offers four
// read-only listing tools, the counterparts of the API's endpoints, and calls the
// API only through the Go SDK (github.com/adsnap/svc/sdk-go):
//
//   - svc_accounts: ad accounts (GET /accounts, scope accounts:read)
//   - svc_campaigns: campaigns (GET /campaigns, scope campaigns:read)
//   - svc_insights: daily insights (GET /insights, scope insights:read)
//   - svc_insights_summary: totals of the insights of one level, per
//     currency and by total, account, campaign, day, week or month,
//     computed by the service in one call (GET /insights/summary, scope
//     insights:read); its description tells models to prefer it to paging
//     svc_insights for totals
//
// and two more tools: svc_glossary (what every column means and how values
// combine; also the resource svc://glossary) and svc_freshness (how fresh
// the snapshot is; also the resource svc://freshness). Two prompts,
// weekly-performance-review and compare-periods, are built on the tools.
//
// Each listing takes limit (1–100; without it at most 50 rows, fewer when
// they would not fit in about 8,000 tokens), offset (0–10000), accountId,
// cursor and fields (the columns to keep); svc_insights and
// svc_insights_summary also take from and to (YYYY-MM-DD, UTC), and
// svc_insights_summary level and groupBy. A result is a table in both channels:
// structuredContent holds columns, data (one array a row), same (the columns
// with one value in every row), the API envelope's meta, complete and
// cursor; the text content is a line stating that the rows are a stored
// snapshot, how fresh it is (dataAsOf), the period (insights) and that the
// rows are untrusted data, then the same table, one line a row. Invisible
// characters (Unicode's Default_Ignorable_Code_Point and a few more) are
// removed from every string of both. Every tool is annotated read-only,
// idempotent, non-destructive and closed-world.
//
// A tool is one file that registers itself in an init function
// (registerList or registerTool).
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
