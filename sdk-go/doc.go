// Package svc is the Go client for the stored advertising snapshot developer
// API: read-only access to ad accounts, campaigns and daily insights that the
// service has already stored. Every response is a stored snapshot that may be
// stale; the service never calls the advertising platform live.
//
// # Creating a client
//
// A client needs a developer key, issued in the settings UI:
//
//	client, err := svc.NewClient(svc.WithAPIKeyFromEnv()) // reads SVC_API_KEY
//
// The key's format and checksum are checked by [NewClient] before it is ever
// sent, and the key is sent only in the Authorization header. It never appears
// in an error or in any string form of the client (%v, %+v, %#v, String,
// GoString).
//
// Requests go to [DefaultSiteURL] unless [WithSiteURL] names another site
// (https, or http to a loopback host only). Redirects are refused, each
// request times out after [DefaultTimeout], and a 429 answer is returned as
// an error unless [WithRetryOnRateLimit] asks the client to wait and retry.
//
// # Listing
//
// Each resource has List, which returns one page, and All, which iterates
// over every row, 100 a page, paced by the service's rate-limit headers. All
// never ends short without an error: past the API's offset limit it splits
// the listing (insights by date range, campaigns by account), and where no
// split helps it yields an error matching [ErrIncomplete]:
//
//	for account, err := range client.Accounts.All(ctx, nil) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(account.ID, account.AccountName)
//	}
//
// Options are validated before any request is made; a problem is reported as
// a [*ValidationError]. Errors returned by the service are [*APIError] values;
// use [IsUnauthorized], [IsRateLimited] and the other predicates, or
// [errors.As], to inspect them.
//
// # Money and totals
//
// Decimal amounts (spend, budgets, ctr, cpc, cpm) are [Decimal] values that
// keep the exact text the service sent; [Decimal.Rat] parses them exactly.
// Amounts in different currencies must never be added together, nor may
// account-level and campaign-level insight rows, which overlap.
// [InsightsService.Summary] asks the service for totals in one request: one
// level, grouped in total, per account, campaign, day, ISO week or month,
// always one currency a group, with ratios recomputed from the sums and
// purchase totals over the rows with evidence beside their count:
//
//	page, err := client.Insights.Summary(ctx, &svc.InsightSummaryOptions{
//		Level: svc.LevelAccount, GroupBy: svc.GroupByAccount,
//	})
//
// [InsightsService.SummaryAll] iterates over every group. The client-side
// [SummarizeInsights] (deprecated) totals rows already read.
//
// # Keeping a copy current
//
// [InsightsService.Changes] reads one sync of the organization's insight
// rows: with token "" every current row, then, with the token the previous
// sync ended with, exactly the rows changed and removed since. Store the
// token with the copy; on [ErrResyncRequired] empty the copy and sync from "":
//
//	for ch, err := range client.Insights.Changes(ctx, token) {
//		if err != nil {
//			return err // errors.Is(err, svc.ErrResyncRequired): resync
//		}
//		switch ch.Kind {
//		case svc.ChangeUpsert: // save ch.Insight under ch.ID
//		case svc.ChangeDelete: // remove ch.ID
//		case svc.ChangeSyncToken: // store ch.SyncToken with the copy
//		}
//	}
package svc
