package snapshot

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/uptrace/bun"
)

// relaxForeignKeys lets the insights merge (PostgreSQL) skip the per-row
// foreign-key triggers (three lookups per row, a quarter of the merge's
// time), which check nothing the import has not checked already: every
// reference of the staged rows was resolved by check. First the referenced
// organizations, accounts and campaigns are locked FOR KEY SHARE, exactly
// the lock the foreign-key triggers would take, so that no concurrent
// transaction can delete them before commit; then
// session_replication_role = replica (for this transaction only) disables
// the foreign-key triggers. Setting the role needs a superuser or the SET privilege on
// it; without either the merge runs with the triggers, as correct and
// slower. It reports whether the triggers are off; restoreForeignKeys
// turns them on again.
func relaxForeignKeys(ctx context.Context, im *importer) (bool, error) {
	tx := im.tx
	for _, l := range []struct {
		st  *statement
		ids []string
	}{{qLockOrganizations, im.refOrgs}, {qLockAccounts, keysOf(im.refAccounts)}, {qLockCampaigns, keysOf(im.refCampaigns)}} {
		if err := lockKeys(ctx, im, l.st, l.ids); err != nil {
			return false, err
		}
	}
	if _, err := tx.ExecContext(ctx, "SAVEPOINT svc_import_role"); err != nil {
		return false, fmt.Errorf("upsert insights: %w", err)
	}
	if _, err := tx.ExecContext(ctx, "SET LOCAL session_replication_role = replica"); err != nil {
		if _, err := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT svc_import_role"); err != nil {
			return false, fmt.Errorf("upsert insights: %w", err)
		}
		return false, nil
	}
	return true, nil
}

// restoreForeignKeys turns the foreign-key triggers on again after the
// merge, for the rest of the transaction.
func restoreForeignKeys(ctx context.Context, tx bun.Tx) error {
	if _, err := tx.ExecContext(ctx, "SET LOCAL session_replication_role = origin"); err != nil {
		return fmt.Errorf("upsert insights: %w", err)
	}
	return nil
}

// The locks of the referenced rows (queries/postgres/lock_*.sql).
var (
	qLockOrganizations = query("lock_organizations")
	qLockAccounts      = query("lock_accounts")
	qLockCampaigns     = query("lock_campaigns")
)

// lockKeys locks the rows with ids FOR KEY SHARE by st, in id order (so
// that two imports cannot deadlock), 1,000 at a time.
func lockKeys(ctx context.Context, im *importer, st *statement, ids []string) error {
	list := slices.Clone(ids)
	sort.Strings(list)
	for start := 0; start < len(list); start += 1000 {
		if err := im.runSQL(ctx, st, bun.List(list[start:min(start+1000, len(list))])); err != nil {
			return err
		}
	}
	return nil
}

// keysOf returns the keys of a set, in no order.
func keysOf(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	return out
}
