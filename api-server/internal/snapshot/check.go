package snapshot

import (
	"context"
	"database/sql"
	"fmt"
)

// Cross-references are checked in the database, inside the transaction,
// against the staged rows plus the stored ones: the arrays may come in any
// order (campaigns before their accounts), and keeping the ids of every
// insight row in memory would make memory grow with the document. Each
// check is one query whose first column is the element's ord, ordered by
// it, read up to maxProblems+1 rows.

// accountOrgs is every account id with its organization: the staged ones,
// then the stored ones the document does not restate.
const accountOrgs = `(SELECT id, organization_id FROM svc_import_accounts
	UNION ALL SELECT id, organization_id FROM ad_accounts
	WHERE id NOT IN (SELECT id FROM svc_import_accounts))`

// refCheck is one check: its query, and the problems a row it returns
// makes (path is the element's).
type refCheck struct {
	k        kind
	query    string
	problems func(path string, v []sql.NullString) []string
}

// refChecks are the checks of references and of rows that would change
// organization. A table of queries, longer than a function should be.
var refChecks = []refCheck{
	{kindAccount, `SELECT s.ord, s.organization_id FROM svc_import_accounts s
		WHERE NOT EXISTS (SELECT 1 FROM organizations o WHERE o.id = s.organization_id) ORDER BY s.ord`,
		func(path string, v []sql.NullString) []string {
			return []string{fmt.Sprintf("%s.organizationId: organization %s is neither in the document nor in the database", path, quote(v[0].String))}
		}},
	{kindAccount, `SELECT s.ord, s.id FROM svc_import_accounts s JOIN ad_accounts a ON a.id = s.id
		WHERE a.organization_id <> s.organization_id ORDER BY s.ord`,
		func(path string, v []sql.NullString) []string {
			return []string{fmt.Sprintf("%s.organizationId: account %s already belongs to another organization; an account never moves", path, quote(v[0].String))}
		}},
	{kindCampaign, `SELECT s.ord, s.account_id FROM svc_import_campaigns s LEFT JOIN ` + accountOrgs + ` a ON a.id = s.account_id
		WHERE a.id IS NULL ORDER BY s.ord`,
		func(path string, v []sql.NullString) []string {
			return []string{fmt.Sprintf("%s.accountId: account %s is neither in the document nor in the database", path, quote(v[0].String))}
		}},
	{kindCampaign, `SELECT s.ord, s.id FROM svc_import_campaigns s JOIN ` + accountOrgs + ` a ON a.id = s.account_id
		JOIN campaigns c ON c.id = s.id WHERE c.organization_id <> a.organization_id ORDER BY s.ord`,
		func(path string, v []sql.NullString) []string {
			return []string{fmt.Sprintf("%s.accountId: campaign %s already belongs to another organization; a campaign never moves", path, quote(v[0].String))}
		}},
	// One pass over the staged insights: the account, and the campaign
	// (staged first, stored otherwise) and its account.
	{kindInsight, `SELECT s.ord, s.account_id, s.campaign_id, CASE WHEN a.id IS NULL THEN 'missing' END, c.account_id, c.staged
		FROM svc_import_insights s
		LEFT JOIN ` + accountOrgs + ` a ON a.id = s.account_id
		LEFT JOIN (SELECT id, account_id, 'staged' AS staged FROM svc_import_campaigns
			UNION ALL SELECT id, account_id, NULL FROM campaigns WHERE id NOT IN (SELECT id FROM svc_import_campaigns)) c
			ON c.id = s.campaign_id
		WHERE a.id IS NULL OR (s.campaign_id IS NOT NULL AND (c.id IS NULL OR c.account_id <> s.account_id))
		ORDER BY s.ord LIMIT ` + fmt.Sprint(maxProblems+1),
		insightReferenceProblems},
	{kindLead, `SELECT s.ord, s.account_id FROM svc_import_leadcontacts s LEFT JOIN ` + accountOrgs + ` a ON a.id = s.account_id
		WHERE a.id IS NULL ORDER BY s.ord`,
		func(path string, v []sql.NullString) []string {
			return []string{fmt.Sprintf("%s.accountId: account %s is neither in the document nor in the database", path, quote(v[0].String))}
		}},
	{kindLead, `SELECT s.ord, s.id FROM svc_import_leadcontacts s JOIN ` + accountOrgs + ` a ON a.id = s.account_id
		JOIN lead_contacts l ON l.id = s.id WHERE l.organization_id <> a.organization_id ORDER BY s.ord`,
		func(path string, v []sql.NullString) []string {
			return []string{fmt.Sprintf("%s.id: lead contact %s already belongs to another organization; a row never moves", path, quote(v[0].String))}
		}},
}

// insightReferenceProblems are the problems of one row of the insights'
// reference check.
func insightReferenceProblems(path string, v []sql.NullString) []string {
	account, campaign, missing, cmpAccount, staged := v[0], v[1], v[2], v[3], v[4]
	var out []string
	if missing.Valid {
		out = append(out, fmt.Sprintf("%s.accountId: account %s is neither in the document nor in the database", path, quote(account.String)))
	}
	switch {
	case !campaign.Valid:
	case !cmpAccount.Valid:
		out = append(out, fmt.Sprintf("%s.campaignId: campaign %s is neither in the document nor in the database", path, quote(campaign.String)))
	case cmpAccount.String != account.String && staged.Valid:
		out = append(out, fmt.Sprintf("%s.campaignId: campaign %s belongs to account %s, not %s", path,
			quote(campaign.String), quote(cmpAccount.String), quote(account.String)))
	case cmpAccount.String != account.String:
		out = append(out, fmt.Sprintf("%s.campaignId: campaign %s belongs to another account than %s", path,
			quote(campaign.String), quote(account.String)))
	}
	return out
}

// check finds, in the database, every problem that needs more than one
// element: duplicates, references and rows that would change organization.
func (im *importer) check(ctx context.Context) error {
	for _, k := range []kind{kindAccount, kindCampaign, kindLead} {
		if err := im.duplicates(ctx, k); err != nil {
			return err
		}
	}
	if err := im.db.checkInsights(ctx, im); err != nil {
		return err
	}
	if err := im.checkWindows(ctx); err != nil {
		return err
	}
	for _, c := range refChecks {
		err := im.rows(ctx, c.query, func(ord int64, v []sql.NullString) {
			im.probs.add(c.problems(im.src.path(c.k, ord), v)...)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// rows runs a check query whose first column is an element's ord and
// calls f for each row (at most maxProblems+1 rows are read).
func (im *importer) rows(ctx context.Context, query string, f func(ord int64, v []sql.NullString), args ...any) error {
	rows, err := im.tx.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("check snapshot references: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	n := 0
	for rows.Next() && n <= maxProblems {
		n++
		var ord int64
		v := make([]sql.NullString, len(cols)-1)
		dst := []any{&ord}
		for i := range v {
			dst = append(dst, &v[i])
		}
		if err := rows.Scan(dst...); err != nil {
			return fmt.Errorf("check snapshot references: %w", err)
		}
		f(ord, v)
	}
	return rows.Err()
}

// duplicates reports every staged element of kind k whose id an earlier
// element already has.
func (im *importer) duplicates(ctx context.Context, k kind) error {
	t := stageTable(k)
	return im.rows(ctx, `SELECT s.ord, s.id, f.first FROM `+t+` s
		JOIN (SELECT id, min(ord) AS first FROM `+t+` GROUP BY id HAVING count(*) > 1) f ON f.id = s.id
		WHERE s.ord > f.first ORDER BY s.ord LIMIT `+fmt.Sprint(maxProblems+1),
		func(ord int64, v []sql.NullString) {
			var first int64
			fmt.Sscan(v[1].String, &first)
			im.probs.add(fmt.Sprintf("%s: duplicate id %s (first at %s)", im.src.path(k, ord), quote(v[0].String), im.src.path(k, first)))
		})
}

// insightConflicts reports duplicate insight ids and insight rows that
// would move to another organization.
func (im *importer) insightConflicts(ctx context.Context) error {
	if err := im.duplicates(ctx, kindInsight); err != nil {
		return err
	}
	return im.rows(ctx, `SELECT s.ord, s.id FROM `+stageTable(kindInsight)+` s JOIN `+accountOrgs+` a ON a.id = s.account_id
		JOIN insights_daily d ON d.id = s.id WHERE d.organization_id <> a.organization_id ORDER BY s.ord LIMIT `+fmt.Sprint(maxProblems+1),
		func(ord int64, v []sql.NullString) {
			im.probs.add(fmt.Sprintf("%s.id: insight %s already belongs to another organization; a row never moves",
				im.src.path(kindInsight, ord), quote(v[0].String)))
		})
}
