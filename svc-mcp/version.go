package svcmcp

// Version is the version of this module, reported to MCP clients unless
// [WithVersion] sets another one. It is updated with each release tag
// svc-mcp/vX.Y.Z.
const Version = "0.1.0"
