// Command svc-mcp runs the MCP server on stdin and stdout, for manual tests
// and for the stdio tests; `svc mcp` of svc-cli is the command users run.
// It reads SVC_API_KEY, and SVC_SITE_URL when set (as svc-cli does), and
// passes them to the server.
// SVC_MCP_DEBUG=1 logs every request, with its protocol version, to stderr.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	svc "github.com/adsnap/svc/sdk-go"
	svcmcp "github.com/adsnap/svc/svc-mcp"
)

func main() { os.Exit(run()) }

func run() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	level := slog.LevelInfo
	if os.Getenv("SVC_MCP_DEBUG") == "1" {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	// This is the one place of the binary that reads its configuration.
	opts := []svcmcp.Option{svcmcp.WithAPIKey(os.Getenv(svc.APIKeyEnv))}
	if site := os.Getenv("SVC_SITE_URL"); site != "" {
		opts = append(opts, svcmcp.WithSiteURL(site))
	}
	if err := svcmcp.Run(ctx, os.Stdin, os.Stdout, logger, opts...); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "svc-mcp:", err)
		return 1
	}
	return 0
}
