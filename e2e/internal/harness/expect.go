package harness

import (
	"sort"
	"time"
)

// What the API must return for the fixture, as decoded JSON (map[string]any
// with float64 numbers), so that a renamed, missing or extra field shows up in
// a go-cmp diff against the raw response.

func sortedStrings(s []string) []string { sort.Strings(s); return s }

func strOrNil(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// ExpectedAccounts returns the Account objects of org, in id order.
func (f *Fixture) ExpectedAccounts(org string) []any {
	var out []any
	for _, a := range f.Doc.Accounts {
		if a.OrganizationID != org {
			continue
		}
		out = append(out, map[string]any{
			"id": a.ID, "accountName": a.AccountName, "currency": a.Currency, "timezone": a.Timezone,
			"isActive": a.IsActive, "lastSyncAt": strOrNil(a.LastSyncAt),
		})
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].(map[string]any)["id"].(string) < out[j].(map[string]any)["id"].(string)
	})
	return out
}

func (f *Fixture) account(id string) Account {
	for _, a := range f.Doc.Accounts {
		if a.ID == id {
			return a
		}
	}
	panic("no account " + id)
}

// ExpectedCampaigns returns the Campaign objects of org (of one account if
// accountID is not empty), in id order.
func (f *Fixture) ExpectedCampaigns(org, accountID string) []any {
	var out []any
	for _, c := range f.Doc.Campaigns {
		a := f.account(c.AccountID)
		if a.OrganizationID != org || (accountID != "" && c.AccountID != accountID) {
			continue
		}
		out = append(out, map[string]any{
			"id": c.ID, "platformAdAccountId": a.PlatformAdAccountID, "name": c.Name, "objective": c.Objective,
			"status": c.Status, "effectiveStatus": strOrNil(c.EffectiveStatus), "dailyBudget": strOrNil(c.DailyBudget),
			"lifetimeBudget": strOrNil(c.LifetimeBudget), "syncedAt": strOrNil(c.SyncedAt),
			"account": map[string]any{"currency": a.Currency, "timezone": a.Timezone},
		})
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].(map[string]any)["id"].(string) < out[j].(map[string]any)["id"].(string)
	})
	return out
}

// ExpectedInsights returns the Insight objects of org (of one account if
// accountID is not empty) with from <= date <= to, by date descending then id.
func (f *Fixture) ExpectedInsights(org, accountID string, from, to time.Time) []any {
	type row struct {
		date, id string
		obj      map[string]any
	}
	var rows []row
	for _, in := range f.Doc.Insights {
		a := f.account(in.AccountID)
		d, _ := time.Parse("2006-01-02", in.Date)
		if a.OrganizationID != org || (accountID != "" && in.AccountID != accountID) || d.Before(from) || d.After(to) {
			continue
		}
		// Every field of openapi.yaml's Insight from the document (wire.go),
		// then what the server takes from the account and the date's form.
		obj := wireObject("Insight", in)
		obj["platformAdAccountId"] = a.PlatformAdAccountID
		obj["date"] = in.Date + "T00:00:00Z"
		obj["account"] = map[string]any{"currency": a.Currency, "timezone": a.Timezone}
		if in.PurchaseMeasurement == "unavailable" {
			obj["purchases"], obj["purchaseValue"], obj["roas"] = nil, nil, nil
		}
		rows = append(rows, row{in.Date, in.ID, obj})
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].date != rows[j].date {
			return rows[i].date > rows[j].date
		}
		return rows[i].id < rows[j].id
	})
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = r.obj
	}
	return out
}
