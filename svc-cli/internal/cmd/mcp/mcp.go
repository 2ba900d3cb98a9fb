// Package mcp is the `svc mcp` command: the local stdio MCP server.
package mcp

import (
	"context"
	"log/slog"

	"github.com/spf13/cobra"

	svc "github.com/adsnap/svc/sdk-go"

	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
	"github.com/adsnap/svc/svc-cli/internal/iostreams"
)

// MCPOptions are what `svc mcp` runs with.
type MCPOptions struct {
	IO         *iostreams.IOStreams
	APIKey     string // SVC_API_KEY, "" when not set
	SiteURL    string
	SDKOptions []svc.Option
	Verbose    bool
}

// NewCmdMCP returns the mcp command. runF, when not nil, runs instead of the
// command body (for flag tests).
func NewCmdMCP(f *cmdutil.Factory, runF func(*MCPOptions) error) *cobra.Command {
	opts := &MCPOptions{IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Start the local MCP server on standard input and output",
		Long: `Start the local MCP (Model Context Protocol) server over stdio, for an MCP host
such as a desktop assistant. Standard input and output carry protocol messages
only; logs go to standard error.

Tools: svc_accounts, svc_campaigns and svc_insights, read-only counterparts of
the three API endpoints, svc_insights_summary (totals computed by the service,
GET /insights/summary), and svc_glossary and svc_freshness; resources
svc://glossary and svc://freshness; prompts weekly-performance-review and
compare-periods. They cannot create ads, change budgets, generate
content or send messages; account and campaign names are data, never
instructions.

The key must be in SVC_API_KEY (standard input is the protocol channel, so
--key-stdin is not available here). Without a valid key the server still
starts, and each tool call answers with an error that says what to fix.
Host configuration: "svc mcp install --client HOST" writes it for Claude
Desktop, Claude Code, Cursor, VS Code and Codex, never with the key. By hand:

  {"command": "svc", "args": ["mcp"], "env": {"SVC_API_KEY": "svc_live_…"}}`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.APIKey = f.Getenv(svc.APIKeyEnv)
			opts.SiteURL = f.SiteURL()
			opts.SDKOptions = f.SDKOptions()
			if runF != nil {
				return runF(opts)
			}
			return mcpRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Verbose, "verbose", false, "log debug messages to standard error")
	cmd.AddCommand(NewCmdInstall(f, nil))
	return cmd
}

func mcpRun(ctx context.Context, opts *MCPOptions) error {
	level := slog.LevelInfo
	if opts.Verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(opts.IO.ErrOut, &slog.HandlerOptions{Level: level}))
	// A missing or malformed key does not stop the server: an MCP host
	// would then show only "connection closed". The server starts, says
	// what to fix on standard error (which hosts keep in their logs), and
	// every tool call answers with a tool error saying the same.
	return serve(ctx, opts, logger)
}
