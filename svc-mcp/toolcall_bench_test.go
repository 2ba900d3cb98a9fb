package svcmcp

import (
	"testing"
	"time"

	svc "github.com/adsnap/svc/sdk-go"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkToolCall compares the same svc_accounts request made directly
// through the SDK ("sdk") and as an MCP tools/call over the in-memory
// transport ("mcp"): the difference is what the MCP layer costs (JSON-RPC,
// schema validation, the text rendering of the result). make bench reports
// it; the target is at most 2 ms more per call.
func BenchmarkToolCall(b *testing.B) {
	// The tests' API double, with its key: a double built here without
	// one answered every call 401, and the benchmark failed.
	site := newTestAPI(b).siteURL()

	b.Run("sdk", func(b *testing.B) {
		client, err := svc.NewClient(svc.WithSiteURL(site), svc.WithAPIKey(testKey))
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := client.Accounts.List(b.Context(), &svc.AccountListOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})

	b.Run("mcp", func(b *testing.B) {
		ctx := b.Context()
		serverT, clientT := mcp.NewInMemoryTransports()
		ss, err := NewServer(withNow(func() time.Time { return testNow }), WithSiteURL(site),
			WithSDKOptions(svc.WithAPIKey(testKey))).Connect(ctx, serverT, nil)
		if err != nil {
			b.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "svcmcp-bench", Version: "1"}, nil).Connect(ctx, clientT, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer func() { _ = cs.Close(); _ = ss.Wait() }()
		params := &mcp.CallToolParams{Name: "svc_accounts", Arguments: map[string]any{}}
		for b.Loop() {
			res, err := cs.CallTool(ctx, params)
			if err != nil {
				b.Fatal(err)
			}
			if res.IsError {
				b.Fatalf("tool error: %+v", res.Content)
			}
		}
	})
}
