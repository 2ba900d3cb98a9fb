package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/adsnap/svc/api-server/internal/snapshot"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/uptrace/bun"
)

// importPruneBatches bounds the pruning an import runs after its commit
// (batches of 1,000 entries): a backlog is left to the next import or to
// 'svc-api prune'.
const importPruneBatches = 10

// addRetentionFlag adds --change-retention (env SVC_CHANGE_RETENTION).
func addRetentionFlag(fs *pflag.FlagSet, v *string) {
	fs.StringVar(v, "change-retention", env("SVC_CHANGE_RETENTION", snapshot.DefaultRetention.String()),
		"how long the change log keeps an entry; older ones are pruned after each import and by 'svc-api prune' (env SVC_CHANGE_RETENTION)")
}

// retention parses --change-retention.
func retention(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, usageError{fmt.Errorf("--change-retention %q: want a positive duration such as 840h", v)}
	}
	return d, nil
}

func newPrune() *cobra.Command {
	var c config
	var keep string
	cmd := &cobra.Command{
		Use:   "prune",
		Short: "Delete the change log's entries older than the retention",
		Long: `prune deletes the entries of the change log (the rows each import changed or removed,
read by the changes feed) recorded longer ago than --change-retention (default 35 days),
1,000 at a time, each batch its own short transaction, and records each organization's
horizon: a sync token older than it is answered 410. It never waits for an import or a
reader. Each import also prunes a little after its commit.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := retention(keep)
			if err != nil {
				return err
			}
			db, _, err := c.openDB(cmd.Context(), "svc.db")
			if err != nil {
				return err
			}
			defer db.Close()
			n, err := snapshot.Prune(cmd.Context(), db, snapshot.PruneOptions{Retention: d})
			if err != nil {
				return migrateHint(err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "pruned %d change-log entries older than %s\n", n, d)
			return nil
		},
	}
	addDatabaseFlags(cmd.Flags(), &c, "svc.db")
	addRetentionFlag(cmd.Flags(), &keep)
	return cmd
}

// pruneAfterImport prunes a few batches after an import's commit; a
// failure is reported and does not fail the import.
func pruneAfterImport(ctx context.Context, db *bun.DB, keep time.Duration, stderr io.Writer) {
	if _, err := snapshot.Prune(ctx, db, snapshot.PruneOptions{Retention: keep, MaxBatches: importPruneBatches}); err != nil {
		fmt.Fprintf(stderr, "warning: %v (the import is committed)\n", err)
	}
}
