package store

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// The answers of GET /insights/summary in one request (DESIGN §4a; issue
// 46): when a request sorts, compares or filters (query.SummaryOptions.
// Ranked), every group of the period is read, named, compared with the
// second period, filtered, ranked within each currency and cut to top, and
// the page is taken from the result. Groups by account or campaign always
// carry their names and status.

var qSummaryNames = query("summary_names")

// allGroups is the limit of the statements that read every group.
const allGroups = math.MaxInt32

func (s *Store) rankedSummary(ctx context.Context, orgID string, p SummaryParams, pre Prelude) (Meta, []SummaryGroup, error) {
	o := p.Options
	all := p
	all.Limit, all.Offset, all.Options = allGroups, 0, nil
	m, groups, err := s.summaryGroups(ctx, orgID, all, pre)
	if err != nil || !m.AccountFound {
		return m, groups, err
	}
	if o.CompareFrom != "" {
		prev := all
		prev.From, prev.To = o.CompareFrom, o.CompareTo
		_, before, err := s.summaryGroups(ctx, orgID, prev, nil)
		if err != nil {
			return m, nil, err
		}
		groups = withPrevious(groups, before)
	}
	if err := s.nameGroups(ctx, orgID, groups); err != nil {
		return m, nil, err
	}
	kept := groups[:0]
	for _, g := range groups {
		if (len(o.Status) == 0 || slices.Contains(o.Status, g.Status)) && g.Meets(o.Having) {
			kept = append(kept, g)
		}
	}
	if o.Sort != "" {
		kept = Rank(kept, o.Sort, o.Desc, o.Top)
	}
	if p.Offset >= len(kept) {
		return m, []SummaryGroup{}, nil
	}
	return m, kept[p.Offset:min(len(kept), p.Offset+p.Limit)], nil
}

// withPrevious pairs each group with the group of the same key in before,
// in the API's order; a key of one period only gets a zero group for the
// other, so that a campaign that stopped (or started) spending is compared
// too.
func withPrevious(groups, before []SummaryGroup) []SummaryGroup {
	zero := func(g *SummaryGroup) SummaryGroup {
		return SummaryGroup{Currency: g.Currency, AccountID: g.AccountID, CampaignID: g.CampaignID,
			PeriodStart: g.PeriodStart, PeriodEnd: g.PeriodEnd, Spend: "0"}
	}
	out := make([]SummaryGroup, 0, max(len(groups), len(before)))
	i, j := 0, 0
	for i < len(groups) || j < len(before) {
		c := 0
		switch {
		case i == len(groups):
			c = 1
		case j == len(before):
			c = -1
		default:
			c = compareKeys(&groups[i], &before[j])
		}
		switch {
		case c < 0:
			g, z := groups[i], zero(&groups[i])
			g.Previous = &z
			out = append(out, g)
			i++
		case c > 0:
			g, prev := zero(&before[j]), before[j]
			g.Previous = &prev
			out = append(out, g)
			j++
		default:
			g, prev := groups[i], before[j]
			g.Previous = &prev
			out = append(out, g)
			i, j = i+1, j+1
		}
	}
	return out
}

// nameGroups sets the names and status of groups by account or campaign:
// the account's name and status (ACTIVE or INACTIVE) on every group with
// an account, the campaign's name and status on every group with a
// campaign. It reads only the ids of the groups.
func (s *Store) nameGroups(ctx context.Context, orgID string, groups []SummaryGroup) error {
	var accounts, campaigns []string
	for _, g := range groups {
		if g.AccountID != "" && (len(accounts) == 0 || accounts[len(accounts)-1] != g.AccountID) {
			accounts = append(accounts, g.AccountID)
		}
		if g.CampaignID != "" {
			campaigns = append(campaigns, g.CampaignID)
		}
	}
	if len(accounts) == 0 {
		return nil
	}
	slices.Sort(accounts)
	accounts = slices.Compact(accounts)
	slices.Sort(campaigns)
	campaigns = slices.Compact(campaigns)
	names, err := s.groupNames(ctx, orgID, accounts, campaigns)
	if err != nil {
		return fmt.Errorf("summary names: %w", err)
	}
	for i := range groups {
		g := &groups[i]
		if a, ok := names["account\x00"+g.AccountID]; ok {
			g.AccountName, g.Status = a[0], a[1]
		}
		if g.CampaignID == "" {
			continue
		}
		if c, ok := names["campaign\x00"+g.CampaignID]; ok {
			g.CampaignName, g.Status = c[0], c[1]
		}
	}
	return nil
}

// groupNames reads the names and statuses of accounts and campaigns, by
// kind and id ("account\x00id"): name, status.
func (s *Store) groupNames(ctx context.Context, orgID string, accounts, campaigns []string) (map[string][2]string, error) {
	out := make(map[string][2]string, len(accounts)+len(campaigns))
	add := func(kind, id, name, status string) { out[kind+"\x00"+id] = [2]string{name, status} }
	if s.pool != nil {
		rows, err := s.pool.Query(ctx, qSummaryNames.pg, orgID, accounts, campaigns)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		for rows.Next() {
			var kind, id, name, status string
			if err := rows.Scan(&kind, &id, &name, &status); err != nil {
				return nil, err
			}
			add(kind, id, name, status)
		}
		return out, rows.Err()
	}
	ja, _ := json.Marshal(accounts)
	jc, _ := json.Marshal(campaigns)
	rows, err := s.stmts[qSummaryNames].QueryContext(ctx, orgID, string(ja), string(jc))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var kind, id, name, status string
		if err := rows.Scan(&kind, &id, &name, &status); err != nil {
			return nil, err
		}
		add(kind, id, name, status)
	}
	return out, rows.Err()
}
