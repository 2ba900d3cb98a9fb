// Package e2e tests the whole system as a black box: it builds svc-api, svc
// and keys-admin, imports a snapshot of three organizations into a fresh
// PostgreSQL database, creates keys through keys-admin, starts replicas that
// share the database and Redis, and talks to them over HTTP (raw and through
// the SDK), through the svc binary and through `svc mcp`.
package e2e

import "testing"

// TestE2E runs the scenarios in order: those that cut services, revoke keys
// or change memberships come after those that read. Run one alone with
// go test -run 'TestE2E/Contract'.
func TestE2E(t *testing.T) {
	e := setup(t)
	for _, sc := range []struct {
		name string
		run  func(*testing.T, *env)
	}{
		{"Contract", testContract},
		{"Double", testDouble}, // svctest, the double of svc-cli's and svc-mcp's tests, answers as svc-api
		{"SDK", testSDK},
		{"Tenancy", testTenancy},
		{"CLI", testCLI},
		{"MCP", testMCP},
		{"BulkReads", testBulkReads},
		{"BulkPacing", testBulkPacing}, // the one slow scenario: about 40 s at the SPEC's limits
		{"Inspector", testInspector},
		{"MCPClients", testMCPClients}, // the TypeScript client in both eras, against svc-api demo
		{"MCPInstall", testMCPInstall}, // svc mcp install's file for each host, started as the host would
		{"Distribution", testDistribution},
		{"Import", testImport},
		{"KeyLifecycle", testKeyLifecycle},
		{"RateLimits", testRateLimits},
		{"FailClosedRedis", testFailClosedRedis},
		{"DatabaseDown", testDatabaseDown},
		{"GracefulShutdown", testGracefulShutdown},
		{"Canaries", testCanaries}, // last: checks everything the others saw
	} {
		t.Run(sc.name, func(t *testing.T) { sc.run(t, e) })
	}
}
