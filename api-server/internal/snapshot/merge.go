package snapshot

import (
	"context"
	"fmt"
	"sort"

	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/uptrace/bun"
)

// The statements of the merge (queries/), in the order merge runs them; a
// statement one dialect lacks is skipped there.
var (
	qAccountsVersions       = query("accounts_versions")
	qAccountsMerge          = query("accounts_merge")
	qAccountCopiesChanged   = query("account_copies_changed")
	qAccountCopiesTouched   = query("account_copies_touched")
	qAccountCopies          = query("account_copies")
	qCampaignCopiesVersions = query("campaign_copies_versions")
	qCampaignCopies         = query("campaign_copies")
	qCampaignsVersions      = query("campaigns_versions")
	qCampaignsMerge         = query("campaigns_merge")
	qMovedFunction          = query("moved_function")
	qInsightsTouched        = query("insights_touched")
	qInsightsMerge          = query("insights_merge")
	qLeadsMerge             = query("leads_merge")
	qDataAsOf               = query("data_as_of")
)

// merge upserts the staged rows into the tables, in the order of their
// references, removes the rows of complete windows, and records what
// changed (changes.go) and each touched organization's data time. Every
// upsert rewrites only the rows whose values differ, so importing the same
// document again writes no row.
func (im *importer) merge(ctx context.Context) error {
	orgs, err := im.touchedOrganizations(ctx)
	if err != nil {
		return err
	}
	im.refOrgs = orgs
	if err := im.beginChanges(ctx, orgs); err != nil {
		return err
	}
	for _, st := range []*statement{qAccountsVersions, qAccountCopiesChanged, qAccountsMerge} {
		if err := im.runSQL(ctx, st, im.now); err != nil {
			return err
		}
	}
	// Stored campaigns repeat their account's platform id, currency and
	// time zone: keep them in step.
	for _, st := range []*statement{qCampaignCopiesVersions, qCampaignCopies, qCampaignsVersions} {
		if err := im.runSQL(ctx, st); err != nil {
			return err
		}
	}
	if err := im.runSQL(ctx, qCampaignsMerge, im.now); err != nil {
		return err
	}
	if err := im.db.mergeInsights(ctx, im); err != nil {
		return err
	}
	if err := im.runSQL(ctx, qLeadsMerge, im.now); err != nil {
		return err
	}
	if err := im.removeIncomplete(ctx); err != nil {
		return err
	}
	// So do stored insight rows the document does not carry (after the
	// upsert and the windows: each row is logged once).
	for _, st := range []*statement{qAccountCopiesTouched, qAccountCopies} {
		if err := im.runSQL(ctx, st, im.now); err != nil {
			return err
		}
	}
	if err := im.recordChanges(ctx, orgs); err != nil {
		return err
	}
	for _, org := range orgs {
		if err := recordDataAsOf(ctx, im, org); err != nil {
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
func recordDataAsOf(ctx context.Context, im *importer, org string) error {
	var latest store.NullTime
	if err := im.tx.QueryRowContext(ctx, qDataAsOf.text(im.pg), org).Scan(&latest); err != nil {
		return fmt.Errorf("compute data time of %s: %w", org, err)
	}
	asOf := im.now
	if latest.Valid {
		asOf = latest.Time
	}
	m := store.OrganizationSnapshot{OrganizationID: org, DataAsOf: asOf, ImportedAt: im.now}
	if _, err := im.tx.NewInsert().Model(&m).
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
