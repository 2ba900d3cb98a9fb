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

// The checks' statements (queries/): each returns the element's ord
// first, ordered by it, at most ?0 rows.
var (
	qDuplicates = [numKinds]*statement{kindAccount: query("duplicates_accounts"), kindCampaign: query("duplicates_campaigns"),
		kindInsight: query("duplicates_insights"), kindLead: query("duplicates_leadcontacts")}
	qInsightMoved = query("check_insight_moved")
)

// refCheck is one check: its statement, and the problems a row it returns
// makes (path is the element's).
type refCheck struct {
	k        kind
	st       *statement
	problems func(path string, v []sql.NullString) []string
}

// refChecks are the checks of references and of rows that would change
// organization.
var refChecks = []refCheck{
	{kindAccount, query("check_account_org"), func(path string, v []sql.NullString) []string {
		return []string{fmt.Sprintf("%s.organizationId: organization %s is neither in the document nor in the database", path, quote(v[0].String))}
	}},
	{kindAccount, query("check_account_moved"), func(path string, v []sql.NullString) []string {
		return []string{fmt.Sprintf("%s.organizationId: account %s already belongs to another organization; an account never moves", path, quote(v[0].String))}
	}},
	{kindCampaign, query("check_campaign_account"), func(path string, v []sql.NullString) []string {
		return []string{fmt.Sprintf("%s.accountId: account %s is neither in the document nor in the database", path, quote(v[0].String))}
	}},
	{kindCampaign, query("check_campaign_moved"), func(path string, v []sql.NullString) []string {
		return []string{fmt.Sprintf("%s.accountId: campaign %s already belongs to another organization; a campaign never moves", path, quote(v[0].String))}
	}},
	{kindInsight, query("check_insight_refs"), insightReferenceProblems},
	{kindLead, query("check_lead_account"), func(path string, v []sql.NullString) []string {
		return []string{fmt.Sprintf("%s.accountId: account %s is neither in the document nor in the database", path, quote(v[0].String))}
	}},
	{kindLead, query("check_lead_moved"), func(path string, v []sql.NullString) []string {
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
		err := im.rows(ctx, c.st.text(im.pg), func(ord int64, v []sql.NullString) {
			im.probs.add(c.problems(im.src.path(c.k, ord), v)...)
		}, maxProblems+1)
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
	return im.rows(ctx, qDuplicates[k].text(im.pg), func(ord int64, v []sql.NullString) {
		var first int64
		fmt.Sscan(v[1].String, &first)
		im.probs.add(fmt.Sprintf("%s: duplicate id %s (first at %s)", im.src.path(k, ord), quote(v[0].String), im.src.path(k, first)))
	}, maxProblems+1)
}

// insightConflicts reports duplicate insight ids and insight rows that
// would move to another organization.
func (im *importer) insightConflicts(ctx context.Context) error {
	if err := im.duplicates(ctx, kindInsight); err != nil {
		return err
	}
	return im.rows(ctx, qInsightMoved.text(im.pg), func(ord int64, v []sql.NullString) {
		im.probs.add(fmt.Sprintf("%s.id: insight %s already belongs to another organization; a row never moves",
			im.src.path(kindInsight, ord), quote(v[0].String)))
	}, maxProblems+1)
}
