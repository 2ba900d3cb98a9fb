// Package cli is the svc-api command: serve, migrate, import, prune, demo
// and version. Main is called by cmd/svc-api and by tests.
//
// Files:
//
//   - cli.go: Main, the root command, migrate and import (runImport);
//   - serve.go: serve, run in named steps: checkServe, runLogs,
//     openTelemetry, openKeys, openStore, openLimiter, buildServer, run
//     (with listen);
//   - config.go: the flags and variables of serve and demo, and the pool
//     sizes (serveConns, maxInFlight);
//   - demo.go: the demo command: its listener (loopback only) and
//     database; what it serves besides the API is package demo;
//   - keyrecheck.go: --key-recheck, how long a remembered key is trusted;
//   - logbuffer.go: the log's lines written together, off the request path;
//   - progress.go: import's progress lines;
//   - prune.go: the prune command and --change-retention (the change
//     log's pruning, also run a little after each import);
//   - pprof.go: the loopback-only profiling listener;
//   - drain.go: --drain-delay's default; primarywatch.go: serve's check,
//     every second, that the PostgreSQL primary is writable;
//   - version.go: binaryVersion, what the version command (cli.go)
//     reports.
package cli
