package svcmcp

// Version is the version of this module, reported to MCP clients unless
// [WithVersion] sets another one. It is the version of versions.yaml at the
// root of the repository (a test of the e2e module checks that they agree),
// updated by `make release MODULE=svc-mcp`.
const Version = "1.0.0"
