package mcp

import (
	"context"
	"log/slog"

	svcmcp "github.com/adsnap/svc/svc-mcp"

	"github.com/adsnap/svc/svc-cli/internal/build"
)

// serve runs the MCP server of svc-mcp on the command's streams.
func serve(ctx context.Context, opts *MCPOptions, logger *slog.Logger) error {
	return svcmcp.Run(ctx, opts.IO.In, opts.IO.Out, logger,
		svcmcp.WithAPIKey(opts.APIKey),
		svcmcp.WithSiteURL(opts.SiteURL),
		svcmcp.WithSDKOptions(opts.SDKOptions...),
		svcmcp.WithVersion(build.Version()),
	)
}
