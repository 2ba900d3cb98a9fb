// Package accountid finds the account ids (the ID column of `svc accounts`,
// the value --accountId takes) of campaign and insight rows for the ACCOUNT
// column of tables. The API's rows carry only platformAdAccountId, the
// account's id at the advertising platform, and accounts do not carry that:
// the only link is the accountId filter. So Resolve lists the accounts and
// asks, for each, for one row of the listed resource filtered by it, until
// every platform id of the rows is found.
package accountid

import (
	"context"
	"fmt"
	"io"
	"slices"

	svc "github.com/adsnap/svc/sdk-go"

	"github.com/adsnap/svc/svc-cli/internal/output"
)

// MaxProbes bounds the requests Resolve makes after listing the accounts,
// so that a table never costs more than a few of the key's 60 requests a
// minute.
const MaxProbes = 10

// Probe returns the platform account id of one row of the listed resource
// filtered by accountID, or "" when there is no such row.
type Probe func(ctx context.Context, accountID string) (string, error)

// Resolve maps each of platformIDs to its account id. filter is the
// --accountId of the listing: when set, every row belongs to it and no
// request is made. It returns what it found and, when some ids are left,
// an error that says why (the caller shows those rows' platform ids).
func Resolve(ctx context.Context, client *svc.Client, filter string, platformIDs []string, probe Probe) (map[string]string, error) {
	need := map[string]bool{}
	for _, p := range platformIDs {
		need[p] = true
	}
	found := map[string]string{}
	if len(need) == 0 {
		return found, nil
	}
	if filter != "" {
		for p := range need {
			found[p] = filter
		}
		return found, nil
	}
	probes := 0
	for a, err := range client.Accounts.All(ctx, &svc.AccountListOptions{ListOptions: svc.ListOptions{Limit: svc.MaxLimit}}) {
		if err != nil {
			return found, fmt.Errorf("listing the accounts: %w", err)
		}
		if len(found) == len(need) {
			break
		}
		if probes == MaxProbes {
			return found, fmt.Errorf("the organization has more than %d accounts", MaxProbes)
		}
		probes++
		p, err := probe(ctx, a.ID)
		if err != nil {
			return found, fmt.Errorf("matching account %s: %w", a.ID, err)
		}
		if need[p] {
			found[p] = a.ID
		}
	}
	if len(found) < len(need) {
		return found, fmt.Errorf("%d platform account ids match no listed account", len(need)-len(found))
	}
	return found, nil
}

// Show returns the account id that ids gives for platformID, or platformID
// itself when there is none.
func Show(ids map[string]string, platformID string) string {
	if id, ok := ids[platformID]; ok {
		return id
	}
	return platformID
}

// Table returns the columns of table with the ACCOUNT column showing each
// row's account id (as `svc accounts` lists it and --accountId takes it)
// instead of its platform account id. It resolves the platform ids of rows
// (platform gives a row's) with Resolve, asking page (a page of the listing)
// for one row of each account. A row whose account id stays unknown shows
// its platform id, and errOut says why.
func Table[T any](ctx context.Context, errOut io.Writer, client *svc.Client, filter string, rows []T,
	platform func(T) string, page func(context.Context, svc.ListOptions) (*svc.Page[T], error),
	table []output.Column[T]) []output.Column[T] {
	platformIDs := make([]string, len(rows))
	for i, r := range rows {
		platformIDs[i] = platform(r)
	}
	ids, err := Resolve(ctx, client, filter, platformIDs, func(ctx context.Context, id string) (string, error) {
		p, err := page(ctx, svc.ListOptions{Limit: 1, AccountID: id})
		if err != nil || len(p.Data) == 0 {
			return "", err
		}
		return platform(p.Data[0]), nil
	})
	if err != nil {
		fmt.Fprintf(errOut, "ACCOUNT shows the platform's account id where the account id is unknown: %s\n", err)
	}
	table = slices.Clone(table)
	for i := range table {
		if table[i].Header == "ACCOUNT" {
			table[i].Value = func(r T) string { return Show(ids, platform(r)) }
		}
	}
	return table
}
