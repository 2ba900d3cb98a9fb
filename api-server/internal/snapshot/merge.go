package snapshot

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/uptrace/bun"
)

// mergeTables are the tables each kind's staged rows are merged into.
var mergeTables = [numKinds]string{kindAccount: "ad_accounts", kindCampaign: "campaigns", kindInsight: "insights_daily", kindLead: "lead_contacts"}

// mergeColumns are the columns the merge of kind k writes, each with its
// select expression: the staged ones (from s, its staging table; decimals
// cast), then those taken from the row's account (from a, see
// fromAccount).
func (im *importer) mergeColumns(k kind) (cols []column, exprs []string) {
	for _, c := range stageColumns[k][1:] { // after ord
		e := "s." + c.name
		if c.decimal {
			e = im.db.decimal(e)
		}
		cols, exprs = append(cols, c), append(exprs, e)
	}
	for _, name := range fromAccount[k] {
		cols, exprs = append(cols, column{name: name}), append(exprs, "a."+name)
	}
	return cols, exprs
}

// updatedColumns are the columns an upsert of kind k sets when the row
// exists: all but id and organization_id, which never change (check).
func updatedColumns(cols []column) []column {
	return slices.DeleteFunc(slices.Clone(cols), func(c column) bool { return c.name == "id" || c.name == "organization_id" })
}

// upsertSQL is the statement that merges kind k's staged rows into its
// table: INSERT … SELECT … ON CONFLICT (id) DO UPDATE, with updated_at the
// import time (the one argument). The table's alias is d.
func (im *importer) upsertSQL(k kind) string {
	cols, exprs := im.mergeColumns(k)
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	var set []string
	for _, c := range updatedColumns(cols) {
		set = append(set, c.name+" = excluded."+c.name)
	}
	from := stageTable(k) + " s"
	if fromAccount[k] != nil {
		from += " JOIN ad_accounts a ON a.id = s.account_id"
	}
	// WHERE true: SQLite needs it to read ON CONFLICT after a SELECT's join.
	return `INSERT INTO ` + mergeTables[k] + ` AS d (` + strings.Join(names, ", ") + `, updated_at)
		SELECT ` + strings.Join(exprs, ", ") + `, ` + im.db.nowArg() + ` FROM ` + from + ` WHERE true
		ON CONFLICT (id) DO UPDATE SET ` + strings.Join(set, ", ") + `, updated_at = excluded.updated_at`
}

// merge upserts the staged rows into the tables, in the order of their
// references, and records each touched organization's data time.
func (im *importer) merge(ctx context.Context) error {
	if err := im.exec(ctx, "upsert accounts", im.upsertSQL(kindAccount), im.now); err != nil {
		return err
	}
	// Rows already stored for these accounts repeat the account's platform
	// id, currency and time zone: keep them in step.
	for _, table := range []string{"campaigns", "insights_daily"} {
		var set, differ []string
		for _, c := range accountCopies {
			set = append(set, c+" = a."+c)
			differ = append(differ, table+"."+c+" <> a."+c)
		}
		if err := im.exec(ctx, "update "+table+" of changed accounts", `UPDATE `+table+` SET `+strings.Join(set, ", ")+`
			FROM `+stageTable(kindAccount)+` a
			WHERE `+table+`.organization_id = a.organization_id AND `+table+`.account_id = a.id
			AND (`+strings.Join(differ, " OR ")+`)`); err != nil {
			return err
		}
	}
	if err := im.exec(ctx, "upsert campaigns", im.upsertSQL(kindCampaign), im.now); err != nil {
		return err
	}
	if err := im.db.mergeInsights(ctx, im, im.upsertSQL(kindInsight)); err != nil {
		return err
	}
	if err := im.exec(ctx, "upsert lead contacts", im.upsertSQL(kindLead), im.now); err != nil {
		return err
	}
	orgs, err := im.touchedOrganizations(ctx)
	if err != nil {
		return err
	}
	for _, org := range orgs {
		if err := recordDataAsOf(ctx, im.tx, org, im.now); err != nil {
			return err
		}
	}
	return im.db.dropStages(ctx, im.stages[kindAccount:])
}

func (im *importer) exec(ctx context.Context, what, q string, args ...any) error {
	if _, err := im.tx.ExecContext(ctx, q, args...); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// touchedOrganizations are the organizations whose data time may have
// changed, sorted: those of the document, of its accounts and of the
// accounts its rows name.
func (im *importer) touchedOrganizations(ctx context.Context) ([]string, error) {
	touched := map[string]bool{}
	for _, o := range im.orgs {
		touched[o.org.ID] = true
	}
	var accOrgs []string
	if err := im.tx.NewSelect().TableExpr(stageTable(kindAccount)).ColumnExpr("DISTINCT organization_id").
		Scan(ctx, &accOrgs); err != nil {
		return nil, fmt.Errorf("read staged organizations: %w", err)
	}
	ids := keysOf(im.refAccounts)
	for start := 0; start < len(ids); start += 500 {
		var orgs []string
		if err := im.tx.NewSelect().TableExpr("ad_accounts").ColumnExpr("DISTINCT organization_id").
			Where("id IN (?)", bun.List(ids[start:min(start+500, len(ids))])).Scan(ctx, &orgs); err != nil {
			return nil, fmt.Errorf("read organizations of accounts: %w", err)
		}
		accOrgs = append(accOrgs, orgs...)
	}
	for _, o := range accOrgs {
		touched[o] = true
	}
	list := keysOf(touched)
	sort.Strings(list)
	return list, nil
}

// recordDataAsOf stores the newest sync time among the organization's
// snapshot rows, so that requests read one row instead of aggregating. An
// organization without any sync time gets the time of its import.
func recordDataAsOf(ctx context.Context, tx bun.Tx, org string, now time.Time) error {
	var latest store.NullTime
	err := tx.QueryRowContext(ctx, `SELECT MAX(t) AS t FROM (
		SELECT MAX(last_sync_at) AS t FROM ad_accounts WHERE organization_id = ?0
		UNION ALL SELECT MAX(synced_at) FROM campaigns WHERE organization_id = ?0
		UNION ALL SELECT MAX(synced_at) FROM insights_daily WHERE organization_id = ?0) AS s`, org).
		Scan(&latest)
	if err != nil {
		return fmt.Errorf("compute data time of %s: %w", org, err)
	}
	asOf := now
	if latest.Valid {
		asOf = latest.Time
	}
	m := store.OrganizationSnapshot{OrganizationID: org, DataAsOf: asOf, ImportedAt: now}
	if _, err := tx.NewInsert().Model(&m).
		On("CONFLICT (organization_id) DO UPDATE").
		Set("data_as_of = EXCLUDED.data_as_of").
		Set("imported_at = EXCLUDED.imported_at").
		Exec(ctx); err != nil {
		return fmt.Errorf("record data time of %s: %w", org, err)
	}
	return nil
}

// writeOrganizations upserts the document's organizations and their
// members, before the checks (which look for them in the database). An
// organization that lists members lists all of them: a stored member it no
// longer lists is marked removed (so a key that member issued stops
// working, SPEC §3), as the host platform would.
func (im *importer) writeOrganizations(ctx context.Context) error {
	for _, e := range im.orgs {
		o := e.org
		members := make([]keys.Member, len(o.Members))
		listed := make([]string, len(o.Members))
		for j, m := range o.Members {
			members[j] = keys.Member{UserID: m.UserID, Role: m.Role}
			if m.Removed {
				members[j].RemovedAt = &im.now
			}
			listed[j] = m.UserID
		}
		org := keys.Organization{ID: o.ID, Name: o.Name, SubscriptionStatus: o.SubscriptionStatus, TrialEndsAt: e.trial}
		if err := keys.UpsertOrganization(ctx, im.tx, org, members, im.now); err != nil {
			return err
		}
		if o.Members == nil {
			continue // no members field: membership left as it is
		}
		q := im.tx.NewUpdate().TableExpr("organization_members").
			Set("removed_at = ?", im.now).Set("updated_at = ?", im.now).
			Where("organization_id = ?", o.ID).Where("removed_at IS NULL")
		if len(listed) > 0 {
			q = q.Where("user_id NOT IN (?)", bun.List(listed))
		}
		if _, err := q.Exec(ctx); err != nil {
			return fmt.Errorf("remove members %s no longer lists: %w", o.ID, err)
		}
	}
	return nil
}
