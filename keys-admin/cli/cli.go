package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/database"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/spf13/cobra"
	"github.com/uptrace/bun"
)

// Set at build time with -ldflags -X (version: see version.go).
var (
	commit = "unknown"
	date   = "unknown"
)

// ExitCode is the process exit status.
type ExitCode int

// Exit codes: the repository's one policy (README.md, "Exit codes"),
// shared with svc-api and svc.
const (
	ExitOK          ExitCode = 0
	ExitError       ExitCode = 1 // unexpected failure
	ExitUsage       ExitCode = 2 // bad flags or input; nothing was done
	ExitRefused     ExitCode = 3 // not a current owner/admin, or the subscription does not allow it
	ExitNotFound    ExitCode = 4 // unknown organization or key
	ExitConflict    ExitCode = 5 // 10 active keys already, or key already revoked
	ExitUnavailable ExitCode = 6 // the database is unreachable or timed out
)

// Main runs the command with the process's arguments and streams.
func Main() ExitCode {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
}

// usageError marks a bad invocation found by a command body.
type usageError struct{ error }

// runError marks an error returned by a command body; any other error from
// cobra (unknown command or flag, missing required flag, bad arguments) is a
// usage error.
type runError struct{ error }

func (e runError) Unwrap() error { return e.error }

// runE wraps a command body so that its errors are told apart from cobra's.
func runE(f func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := f(cmd, args); err != nil {
			return runError{err}
		}
		return nil
	}
}

// Run runs the command with args, writing to stdout and stderr.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) ExitCode {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	fmt.Fprintln(stderr, "keys-admin:", err)
	return exitCode(err)
}

func exitCode(err error) ExitCode {
	var u usageError
	var r runError
	if errors.As(err, &u) || !errors.As(err, &r) {
		return ExitUsage
	}
	switch {
	case errors.Is(err, keys.ErrInvalid):
		return ExitUsage
	case errors.Is(err, keys.ErrRefused):
		return ExitRefused
	case errors.Is(err, keys.ErrNotFound):
		return ExitNotFound
	case errors.Is(err, keys.ErrConflict):
		return ExitConflict
	case database.Unavailable(err):
		return ExitUnavailable
	}
	return ExitError
}

const rootHelp = `keys-admin manages developer keys for the Snapshot Developer Service: the same
rules as the settings UI (SPEC §3, §5) for operators and scripts.

The acting user (--user) must be a current owner or admin of the organization.
A new key is printed once, alone, on standard output; only its SHA-256 is stored.

Database: --database-url, or the SVC_DATABASE_URL environment variable
(postgres://… or sqlite:PATH).

Exit codes (one policy for keys-admin, svc-api and svc: the repository's
README.md, section "Exit codes"):
  0  success
  1  unexpected failure (the message says what failed)
  2  usage: bad flags or input (scope, expiry, name); nothing was done
  3  refused: not a current owner/admin, or the subscription does not allow it
  4  not found: unknown organization or key
  5  conflict or limit: already 10 active keys, or the key is already revoked,
     rolled or expired
  6  unavailable: the database is unreachable or timed out; try again later`

type app struct {
	stdout, stderr io.Writer
	databaseURL    string
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	a := &app{stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:           "keys-admin",
		Short:         "Create, list, revoke and roll developer keys",
		Long:          rootHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// The default is read at run time, so that --help never prints a URL
	// (which may hold a password) from the environment.
	root.PersistentFlags().StringVar(&a.databaseURL, "database-url", "", "database URL: postgres://… or sqlite:PATH (default $SVC_DATABASE_URL)")
	root.AddCommand(a.migrateCmd(), a.createCmd(), a.listCmd(), a.revokeCmd(), a.rollCmd(), versionCmd(stdout))
	return root
}

// openDB opens the database named by --database-url, else by
// SVC_DATABASE_URL, with at most conns connections.
func (a *app) openDB(ctx context.Context, conns int) (*bun.DB, error) {
	url := a.databaseURL
	if url == "" {
		url = os.Getenv("SVC_DATABASE_URL")
	}
	if url == "" {
		return nil, usageError{errors.New("no database: set --database-url or SVC_DATABASE_URL")}
	}
	if !strings.HasPrefix(url, "postgres://") && !strings.HasPrefix(url, "postgresql://") && !strings.HasPrefix(url, "sqlite:") {
		return nil, usageError{fmt.Errorf("database url %s: want postgres://… or sqlite:PATH", database.Redact(url))}
	}
	return database.Open(ctx, url, database.Options{MaxOpenConns: conns})
}

// manager opens the database and returns the key manager on it, and the
// function that closes the database.
func (a *app) manager(ctx context.Context) (*keys.Manager, func(), error) {
	db, err := a.openDB(ctx, 4)
	if err != nil {
		return nil, nil, err
	}
	return keys.NewManager(db), func() { db.Close() }, nil
}

func (a *app) migrateCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "Create or update the keys tables (idempotent)",
		Args:  noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			db, err := a.openDB(cmd.Context(), 2)
			if err != nil {
				return err
			}
			defer db.Close()
			applied, err := keys.Migrate(cmd.Context(), db)
			if err != nil {
				return err
			}
			if len(applied) == 0 {
				fmt.Fprintln(a.stderr, "keys tables are up to date")
			}
			for _, m := range applied {
				fmt.Fprintln(a.stderr, "applied", m)
			}
			return nil
		}),
	}
}

type actor struct{ org, user string }

func (ac *actor) flags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&ac.org, "org", "", "organization id (required)")
	cmd.Flags().StringVar(&ac.user, "user", "", "acting user id: a current owner or admin (required)")
	cmd.MarkFlagRequired("org")  //nolint:errcheck
	cmd.MarkFlagRequired("user") //nolint:errcheck
}

func (a *app) createCmd() *cobra.Command {
	var ac actor
	var name, scopes string
	var days int
	cmd := &cobra.Command{
		Use:   "create --org ORG --user USER --scopes SCOPES [--expires-in-days N] [--name NAME]",
		Short: "Create a key and print it, once, on standard output",
		Example: `  keys-admin create --org org_a --user u_1 --scopes accounts:read,insights:read --expires-in-days 30 --name etl
  KEY=$(keys-admin create --org org_a --user u_1 --scopes accounts:read)`,
		Args: noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			set, err := apikey.ParseScopes(scopes)
			if err != nil {
				return usageError{fmt.Errorf("--scopes: %w", err)}
			}
			req := keys.CreateRequest{OrganizationID: ac.org, UserID: ac.user, Name: name, Scopes: set, ExpiresInDays: days}
			if err := req.Validate(); err != nil {
				return err
			}
			m, done, err := a.manager(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			k, err := m.Create(cmd.Context(), req)
			if err != nil {
				return err
			}
			fmt.Fprintln(a.stdout, k.Key)
			fmt.Fprintf(a.stderr, "created %s (%s) for %s: scopes %s, expires %s\n"+
				"This is the only time the key is shown; store it in a secret manager.\n",
				k.ID, k.Hint, ac.org, strings.Join(k.Scopes, ","), k.ExpiresAt.Format(time.RFC3339))
			return nil
		}),
	}
	ac.flags(cmd)
	cmd.Flags().StringVar(&scopes, "scopes", "", "comma-separated: accounts:read, campaigns:read, insights:read (required)")
	cmd.Flags().IntVar(&days, "expires-in-days", 30, "lifetime in days, 1 to 90")
	cmd.Flags().StringVar(&name, "name", "", "a label to tell keys apart (at most 100 characters)")
	cmd.MarkFlagRequired("scopes") //nolint:errcheck
	return cmd
}

func (a *app) listCmd() *cobra.Command {
	var ac actor
	var output string
	cmd := &cobra.Command{
		Use:   "list --org ORG --user USER [-o table|json]",
		Short: "List the organization's keys with their state (never a key value)",
		Args:  noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if output != "table" && output != "json" {
				return usageError{fmt.Errorf("-o %q: want table or json", output)}
			}
			m, done, err := a.manager(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			list, err := m.List(cmd.Context(), ac.org, ac.user)
			if err != nil {
				return err
			}
			if output == "json" {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(list)
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tSCOPES\tHINT\tSTATE\tCREATED\tEXPIRES\tLAST USED")
			for _, k := range list {
				lastUsed := "never"
				if k.LastUsedAt != nil {
					lastUsed = k.LastUsedAt.Format(time.RFC3339)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, strings.Join(k.Scopes, ","), k.Hint,
					k.State, k.CreatedAt.Format(time.RFC3339), k.ExpiresAt.Format(time.RFC3339), lastUsed)
			}
			return tw.Flush()
		}),
	}
	ac.flags(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: table or json")
	return cmd
}

func (a *app) revokeCmd() *cobra.Command {
	var ac actor
	cmd := &cobra.Command{
		Use:   "revoke --org ORG --user USER KEY_ID",
		Short: "Revoke a key; requests with it fail from then on",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError{errors.New("revoke takes exactly one KEY_ID (see `keys-admin list`)")}
			}
			return nil
		},
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			m, done, err := a.manager(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			info, err := m.Revoke(cmd.Context(), ac.org, ac.user, args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "revoked %s (%s) at %s\n", info.ID, info.Hint, info.RevokedAt.Format(time.RFC3339))
			return nil
		}),
	}
	ac.flags(cmd)
	return cmd
}

func versionCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  noArgs,
		Run: func(*cobra.Command, []string) {
			fmt.Fprintf(stdout, "keys-admin %s (commit %s, built %s)\n", binaryVersion(), commit, date)
		},
	}
}

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageError{fmt.Errorf("%s takes no arguments, got %q", cmd.Name(), args)}
	}
	return nil
}
