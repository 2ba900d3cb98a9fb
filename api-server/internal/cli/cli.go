package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/snapshot"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/telemetry"
	"github.com/adsnap/svc/keys-admin/database"
	"github.com/gin-gonic/gin"
	"github.com/spf13/cobra"
	"github.com/uptrace/bun"
)

// Set by -ldflags -X at build time (version: see version.go).
var (
	commit = "unknown"
	date   = "unknown"
)

// Exit codes: the repository's one policy (README.md, "Exit codes"),
// shared with keys-admin and svc. svc-api uses these.
const (
	exitOK          = 0
	exitError       = 1 // unexpected failure
	exitUsage       = 2 // bad command, flag or value; nothing was done
	exitUnavailable = 6 // the database or Redis is unreachable or timed out
	exitInvalid     = 8 // import: the document is invalid; nothing was changed
)

// exitCodesHelp is the root command's summary of the exit codes.
const exitCodesHelp = `Exit codes (one policy for svc-api, keys-admin and svc: the repository's
README.md, section "Exit codes"):
  0  success
  1  unexpected failure (the message says what failed)
  2  usage: bad command, flag or value; nothing was done
  6  unavailable: the database or Redis is unreachable or timed out; try again later
  8  invalid data: import refused the document; nothing was changed`

// gin's mode is a process-wide global of gin's: set once here, for every
// command and for tests that run them, instead of by server.New. Release
// mode prints no route table or debug warnings (the server logs JSON only).
func init() { gin.SetMode(gin.ReleaseMode) }

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
	case store.Unavailable(err), errors.Is(err, ratelimit.ErrUnavailable):
		fmt.Fprintln(stderr, "svc-api:", err)
		return exitUnavailable
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
Start with 'svc-api demo': it needs nothing but this binary.

` + exitCodesHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newServe(), newMigrate(), newImport(), newPrune(), newDemo(), newVersion())
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

// newBufferedLogger is newLogger writing through a logBuffer (the same
// lines, written together every logFlushEvery while the buffer's Run runs;
// warnings and errors at once).
func newBufferedLogger(w io.Writer, level string) (*slog.Logger, *logBuffer, error) {
	b := newLogBuffer(w)
	log, err := newLogger(b, level)
	if err != nil {
		return nil, nil, err
	}
	return slog.New(flushingHandler{Handler: log.Handler(), b: b}), b, nil
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

// migrateHint adds what to do to an error that says a table or column is
// missing (store.SchemaMissing: the PostgreSQL SQLSTATE or SQLite's result
// code).
func migrateHint(err error) error {
	if store.SchemaMissing(err) {
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
	var format string
	var progress bool
	cmd := &cobra.Command{
		Use:   "import FILE|-",
		Short: "Load a snapshot document (JSON or NDJSON; - reads standard input)",
		Long: `import loads a snapshot document (DESIGN §2a) with upsert semantics in one transaction.

The document is streamed: it is read element by element, each element validated and
staged in batches (COPY into temporary tables on PostgreSQL), then references,
duplicates and ownership are checked in the database and the staged rows merged into
the tables. Memory does not depend on the document's size.

Formats (--format, default auto: ndjson for FILE ending in .ndjson or .jsonl, else json):
  json    one JSON object: {"organizations": [...], "accounts": [...], "campaigns": [...],
          "insights": [...], "leadContacts": [...], "complete": [...]}, every array
          optional; "complete": [{"accountId", "from", "to"}] removes the stored rows of
          that account and those days that the document does not carry.
  ndjson  one record a line, for sync jobs that write as they fetch: a JSON object whose
          "kind" is organization, account, campaign, insight, leadContact or complete,
          and whose other fields are those of an element of that kind, e.g.
          {"kind":"insight","id":"ins_1","accountId":"acc_1","campaignId":null,...}
          Records may come in any order; blank lines are ignored.

If anything is invalid, the problems are printed with their path ($.insights[3].date in
JSON, "line 12: $.date" in NDJSON; the first 200, then a count) and nothing is written
(exit code 8). Interrupting the import (Ctrl-C, SIGTERM) or killing it writes nothing
either: readers see the old rows until the one commit at the end. Importing the same
document again changes nothing. Every import records what it changed (the change log,
the day versions, an import record per organization) in the same transaction, and
prunes change-log entries older than --change-retention after its commit. An
organization that lists "members" lists all of them: a stored member it no longer
lists is marked removed.

Progress goes to standard error (rows per kind and rate; a refreshing line on a
terminal, a line every 10 seconds otherwise), then a summary line. Run 'svc-api
migrate' first.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError{errors.New("import takes one argument: a FILE or - for standard input")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runImport(cmd, &c, args[0], format, progress)
		},
	}
	addDatabaseFlags(cmd.Flags(), &c, "svc.db")
	cmd.Flags().StringVar(&format, "format", "auto", "input format: auto, json or ndjson")
	cmd.Flags().BoolVar(&progress, "progress", true, "report progress on standard error")
	addRetentionFlag(cmd.Flags(), &c.ChangeRetention)
	return cmd
}

// runImport is import's run: FILE (or - for standard input) in format,
// with progress on standard error when progress is set.
func runImport(cmd *cobra.Command, c *config, file, format string, progress bool) error {
	keep, err := retention(c.ChangeRetention)
	if err != nil {
		return err
	}
	opts := snapshot.Options{Now: time.Now()}
	switch format {
	case "json":
	case "ndjson":
		opts.Format = snapshot.FormatNDJSON
	case "auto":
		if ext := strings.ToLower(filepath.Ext(file)); ext == ".ndjson" || ext == ".jsonl" {
			opts.Format = snapshot.FormatNDJSON
		}
	default:
		return usageError{fmt.Errorf("--format %q: want auto, json or ndjson", format)}
	}
	var r io.Reader = cmd.InOrStdin()
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	db, _, err := c.openDB(cmd.Context(), "svc.db")
	if err != nil {
		return err
	}
	defer db.Close()
	stderr := cmd.ErrOrStderr()
	p := newProgress(stderr, progress)
	opts.Progress = p.update
	sum, err := snapshot.ImportStream(cmd.Context(), db, r, opts)
	telemetry.ImportRun(err)
	p.finish()
	if err != nil {
		if cmd.Context().Err() != nil {
			return fmt.Errorf("import interrupted, nothing was imported: %w", cmd.Context().Err())
		}
		return migrateHint(err)
	}
	fmt.Fprintf(stderr, "imported %s in %s (%s rows/s)\n", sum, p.elapsed().Round(time.Millisecond),
		rate(sum.Total(), p.elapsed()))
	pruneAfterImport(cmd.Context(), db, keep, stderr)
	return nil
}
