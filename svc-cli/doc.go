// Package svccli is the module of svc, the command-line client of the
// Snapshot Developer Service. The command is in cmd/svc:
//
//	go install github.com/adsnap/svc/svc-cli/cmd/svc@latest
//
// svc reads the stored advertising snapshots of an organization (ad
// accounts, campaigns and daily insights) through the Go SDK
// (github.com/adsnap/svc/sdk-go) and starts the local MCP server of
// github.com/adsnap/svc/svc-mcp with `svc mcp`. It only reads, only talks to
// its site, refuses redirects, times out each request after 15 s and never
// saves the key. See README.md for the commands, flags, output formats and
// exit codes.
//
// Layout (after cli/cli): cmd/svc/main.go calls internal/svccmd.Main; each
// command is a package under internal/cmd with NewCmdX(f, runF); the shared
// pieces are internal/cmdutil (Factory, flags, exit codes), internal/iostreams,
// internal/output (table, json, jsonl, csv), internal/listing (paging) and
// internal/localcopy (the SQLite copy of `svc insights sync`).
// This package holds no code, only the scenario and distribution tests.
package svccli
