// Package cli is the svc-api command: serve, migrate, import, demo and
// version. Main is called by cmd/svc-api and by tests.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/adsnap/svc/api-server/internal/snapshot"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/keys-admin/database"
	"github.com/spf13/cobra"
	"github.com/uptrace/bun"
)

// Set by -ldflags -X at build time.
var (
	version = "dev"
	commit  = "unknown"
	date    = "unknown"
)

// Exit codes.
const (
	exitOK      = 0
	exitError   = 1
	exitUsage   = 2
	exitInvalid = 3 // import: the document is invalid
)

// usageError marks errors in the command line.
type usageError struct{ error }

// Main runs svc-api with os.Args and returns the exit code.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// Run runs svc-api with args and returns the exit code.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ve *snapshot.ValidationError
	var ue usageError
	switch {
	case errors.As(err, &ve):
		fmt.Fprintln(stderr, "svc-api:", ve.Error())
		return exitInvalid
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "svc-api:", err)
		fmt.Fprintln(stderr, "Run 'svc-api --help' for usage.")
		return exitUsage
	}
	fmt.Fprintln(stderr, "svc-api:", err)
	return exitError
}

func newRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "svc-api",
		Short: "Read-only API serving stored advertising snapshots",
		Long: `svc-api serves the read-only Snapshot Developer API (GET /api/v1/developer/accounts,
/campaigns, /insights) from PostgreSQL (production) or an embedded SQLite file.

Every flag takes its default from the SVC_* environment variable named in its help.
Start with 'svc-api demo': it needs nothing but this binary.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newServe(), newMigrate(), newImport(), newDemo(), newVersion())
	return root
}

func newVersion() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "svc-api %s (commit %s, built %s)\n", binaryVersion(), commit, date)
			return nil
		},
	}
}

func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, usageError{fmt.Errorf("--log-level %q: want debug, info, warn or error", level)}
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l})), nil
}

// openDB opens the database of c (file names the default SQLite file under
// the data directory) and returns it with its URL.
func (c *config) openDB(ctx context.Context, file string) (*bun.DB, string, error) {
	url, err := c.databaseURL(file)
	if err != nil {
		return nil, "", err
	}
	db, err := database.Open(ctx, withStatementTimeout(url, c.statementTimeout), database.Options{MaxOpenConns: c.DBMaxConns})
	return db, url, err
}

// migrateHint adds what to do to an error that says the schema is missing.
func migrateHint(err error) error {
	if err != nil && (strings.Contains(err.Error(), "no such table") || strings.Contains(err.Error(), "does not exist")) {
		return fmt.Errorf("%w (run 'svc-api migrate' first)", err)
	}
	return err
}

func newMigrate() *cobra.Command {
	var c config
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply the database migrations (idempotent, under the migrator's lock)",
		Long: `migrate applies keys-admin's migrations (organizations, members, developer keys),
then the api-server's (ad accounts, campaigns, daily insights, lead contacts). Running
it again applies nothing; replicas may run it concurrently.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, url, err := c.openDB(cmd.Context(), "svc.db")
			if err != nil {
				return err
			}
			defer db.Close()
			applied, err := store.Migrate(cmd.Context(), db)
			if err != nil {
				return err
			}
			if len(applied) == 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "%s: up to date\n", database.Redact(url))
			}
			for _, a := range applied {
				fmt.Fprintf(cmd.ErrOrStderr(), "applied %s\n", a)
			}
			return nil
		},
	}
	addDatabaseFlags(cmd.Flags(), &c, "svc.db")
	return cmd
}

func newImport() *cobra.Command {
	var c config
	cmd := &cobra.Command{
		Use:   "import FILE|-",
		Short: "Load a snapshot document (JSON; - reads standard input)",
		Long: `import loads a snapshot document (DESIGN §2a) with upsert semantics in one transaction.
The whole document is validated first; if any part is invalid, every problem is printed
with its JSON path (e.g. $.insights[3].date) and nothing is written (exit code 3).
Importing the same document again changes nothing. Run 'svc-api migrate' first.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError{errors.New("import takes one argument: a FILE or - for standard input")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var r io.Reader = cmd.InOrStdin()
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return err
				}
				defer f.Close()
				r = f
			}
			doc, err := snapshot.Parse(r)
			if err != nil {
				return err
			}
			if err := snapshot.Validate(doc); err != nil {
				return err
			}
			db, _, err := c.openDB(cmd.Context(), "svc.db")
			if err != nil {
				return err
			}
			defer db.Close()
			sum, err := snapshot.Import(cmd.Context(), db, doc, time.Now())
			if err != nil {
				return migrateHint(err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "imported %s\n", sum)
			return nil
		},
	}
	addDatabaseFlags(cmd.Flags(), &c, "svc.db")
	return cmd
}

// binaryVersion returns the version set with -ldflags -X (`make build` stamps
// the versions.yaml one), else the module version the go command recorded
// (`go install github.com/adsnap/svc/api-server/cmd/…@vX.Y.Z` gives X.Y.Z), else "dev".
func binaryVersion() string {
	if version != "dev" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Path == "github.com/adsnap/svc/api-server" &&
		info.Main.Version != "" && info.Main.Version != "(devel)" {
		return strings.TrimPrefix(info.Main.Version, "v")
	}
	return version
}
