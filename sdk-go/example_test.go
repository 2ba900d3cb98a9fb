package svc_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"

	svc "github.com/adsnap/svc/sdk-go"
)

// exampleKey is a well-formed key (its checksum is right); the example
// server accepts it.
const exampleKey = "svc_live_00000000000000000000000000000000000001w1XY4"

// exampleServer stands in for the service: it serves canned pages under
// /api/v1/developer, by path and offset, and answers 429 for accountId=busy.
func exampleServer() *httptest.Server {
	const meta = `"source":"stored_snapshot","liveMetaRequest":false,"limit":2,"returned":2,` +
		`"generatedAt":"2026-11-20T10:00:00Z","dataAsOf":"2026-11-20T06:00:00Z","note":"Stored snapshot; may be stale."`
	insight := func(id, campaign, currency, spend, purchases string) string {
		return fmt.Sprintf(`{"id":%q,"platformAdAccountId":"act_1","attributionWindow":"7d_click",`+
			`"campaignId":%s,"date":"2026-11-19T00:00:00Z","syncedAt":null,`+
			`"account":{"currency":%q,"timezone":"UTC"},"purchaseMeasurement":%q,`+
			`"spend":%q,"ctr":"1","cpc":"1","cpm":"1","impressions":100,"reach":90,"clicks":3,`+
			`"purchases":%s,"purchaseValue":%s,"roas":null}`,
			id, campaign, currency,
			map[bool]string{true: "unavailable", false: "reported_purchase_value"}[purchases == "null"],
			spend, purchases, purchases)
	}
	pages := map[string]string{
		"/api/v1/developer/accounts": `{"data":[
			{"id":"acc_1","accountName":"Acme EU","currency":"EUR","timezone":"Europe/Berlin","isActive":true,"lastSyncAt":"2026-11-20T06:00:00Z"},
			{"id":"acc_2","accountName":"Acme US","currency":"USD","timezone":"America/New_York","isActive":false,"lastSyncAt":null}
			],"meta":{"offset":0,"nextOffset":2,` + meta + `}}`,
		"/api/v1/developer/insights": `{"data":[` +
			insight("ins_1", "null", "EUR", "12.50", "2") + `,` +
			insight("ins_2", `"cmp_1"`, "EUR", "4.25", "1") +
			`],"meta":{"offset":0,"nextOffset":2,` + meta + `}}`,
		"/api/v1/developer/insights/summary": `{"data":[` +
			`{"level":"account","currency":"EUR","accountId":"acc_1","campaignId":null,"periodStart":null,"periodEnd":null,` +
			`"rows":7,"days":7,"spend":"561.50","impressions":88639,"clicks":1520,"ctr":"1.7148","cpc":"0.3694","cpm":"6.3347",` +
			`"purchaseRows":5,"purchases":"49","purchaseValueRows":5,"purchaseValue":"2497.25","roas":"5.7487"},` +
			`{"level":"account","currency":"USD","accountId":"acc_2","campaignId":null,"periodStart":null,"periodEnd":null,` +
			`"rows":7,"days":7,"spend":"641.21","impressions":94023,"clicks":0,"ctr":"0.0000","cpc":null,"cpm":"6.8197",` +
			`"purchaseRows":0,"purchases":null,"purchaseValueRows":0,"purchaseValue":null,"roas":null}` +
			`],"meta":{"offset":0,"nextOffset":null,` + meta + `}}`,
		"/api/v1/developer/insights?offset=2": `{"data":[` +
			insight("ins_3", `"cmp_2"`, "EUR", "1.75", "null") + `,` +
			insight("ins_4", "null", "USD", "9.99", "3") +
			`],"meta":{"offset":2,"nextOffset":null,` + meta + `}}`,
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "req_42")
		if r.URL.Query().Get("accountId") == "busy" {
			w.Header().Set("Retry-After", "60")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"statusCode":429,"message":"rate limit exceeded for this key"}`)
			return
		}
		key := r.URL.Path
		if off := r.URL.Query().Get("offset"); off != "" {
			key += "?offset=" + off
		}
		page, ok := pages[key]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"statusCode":404,"message":"not found"}`)
			return
		}
		io.WriteString(w, page)
	}))
}

func ExampleAccountsService_List() {
	srv := exampleServer()
	defer srv.Close()

	client, err := svc.NewClient(
		svc.WithAPIKey(exampleKey), // or svc.WithAPIKeyFromEnv()
		svc.WithSiteURL(srv.URL),   // omit to use $SVC_SITE_URL or svc.DefaultSiteURL
	)
	if err != nil {
		log.Fatal(err)
	}
	page, err := client.Accounts.List(context.Background(), &svc.AccountListOptions{
		ListOptions: svc.ListOptions{Limit: 2},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range page.Data {
		fmt.Printf("%s %s %s active=%v\n", a.ID, a.AccountName, a.Currency, a.IsActive)
	}
	fmt.Println("snapshot as of", page.Meta.DataAsOf, "next offset", *page.Meta.NextOffset)
	// Output:
	// acc_1 Acme EU EUR active=true
	// acc_2 Acme US USD active=false
	// snapshot as of 2026-11-20T06:00:00Z next offset 2
}

func ExampleInsightsService_All() {
	srv := exampleServer()
	defer srv.Close()
	client, err := svc.NewClient(svc.WithAPIKey(exampleKey), svc.WithSiteURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}

	// All requests page after page until meta.nextOffset is null.
	for row, err := range client.Insights.All(context.Background(), nil) {
		if err != nil {
			log.Fatal(err) // includes svc.ErrSnapshotMoved if the data changed meanwhile
		}
		purchases := "unavailable"
		if row.Purchases != nil {
			purchases = fmt.Sprint(*row.Purchases)
		}
		fmt.Printf("%s %s %s %s %s purchases=%s\n", row.ID, row.Date, row.Level(), row.Account.Currency, row.Spend, purchases)
	}
	// Output:
	// ins_1 2026-11-19 account EUR 12.50 purchases=2
	// ins_2 2026-11-19 campaign EUR 4.25 purchases=1
	// ins_3 2026-11-19 campaign EUR 1.75 purchases=unavailable
	// ins_4 2026-11-19 account USD 9.99 purchases=3
}

func ExampleAPIError() {
	srv := exampleServer()
	defer srv.Close()
	client, err := svc.NewClient(svc.WithAPIKey(exampleKey), svc.WithSiteURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}

	_, err = client.Campaigns.List(context.Background(), &svc.CampaignListOptions{
		ListOptions: svc.ListOptions{AccountID: "busy"},
	})
	var apiErr *svc.APIError
	if errors.As(err, &apiErr) {
		fmt.Println("status:", apiErr.StatusCode)
		fmt.Println("rate limited:", svc.IsRateLimited(err), "retry after:", apiErr.RetryAfter)
		fmt.Println("request id:", apiErr.RequestID)
	}
	fmt.Println(err)

	// Options are checked before any request is made.
	_, err = client.Campaigns.List(context.Background(), &svc.CampaignListOptions{
		ListOptions: svc.ListOptions{Limit: 500},
	})
	var verr *svc.ValidationError
	fmt.Println(errors.As(err, &verr), err)
	// Output:
	// status: 429
	// rate limited: true retry after: 1m0s
	// request id: req_42
	// svc: GET /campaigns: 429 Too Many Requests: rate limit exceeded for this key; retry after 1m0s (request id req_42)
	// true svc: invalid request, no request was made: limit must be between 1 and 100, not 500
}

func ExampleSummarizeInsights() {
	srv := exampleServer()
	defer srv.Close()
	client, err := svc.NewClient(svc.WithAPIKey(exampleKey), svc.WithSiteURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	var rows []svc.Insight
	for row, err := range client.Insights.All(context.Background(), nil) {
		if err != nil {
			log.Fatal(err)
		}
		rows = append(rows, row)
	}

	// One total per currency and level: never added across either.
	for _, s := range svc.SummarizeInsights(rows) {
		purchases := "unavailable" // never shown as zero
		if s.Purchases != nil {
			purchases = s.Purchases.String()
		}
		fmt.Printf("%s %-8s rows=%d spend=%s clicks=%d purchases=%s\n",
			s.Currency, s.Level, s.Rows, s.Spend, s.Clicks, purchases)
	}
	// Output:
	// EUR account  rows=1 spend=12.50 clicks=3 purchases=2
	// EUR campaign rows=2 spend=6.00 clicks=6 purchases=unavailable
	// USD account  rows=1 spend=9.99 clicks=3 purchases=3
}

func ExampleInsightsService_Summary() {
	srv := exampleServer()
	defer srv.Close()
	client, err := svc.NewClient(svc.WithAPIKey(exampleKey), svc.WithSiteURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}

	// Spend per account last week, computed by the service in one request:
	// one group per account, each in one currency, account-level rows only.
	page, err := client.Insights.Summary(context.Background(), &svc.InsightSummaryOptions{
		From:    svc.Date{Year: 2026, Month: 11, Day: 13},
		To:      svc.Date{Year: 2026, Month: 11, Day: 19},
		Level:   svc.LevelAccount,
		GroupBy: svc.GroupByAccount,
	})
	if err != nil {
		log.Fatal(err)
	}
	orNA := func(d *svc.Decimal) string {
		if d == nil {
			return "n/a" // unknown, never zero
		}
		return d.String()
	}
	for _, g := range page.Data {
		fmt.Printf("%s %s spend=%s %s cpc=%s purchases=%s (from %d of %d rows)\n",
			*g.AccountID, g.Level, g.Spend, g.Currency, orNA(g.CPC), orNA(g.Purchases), g.PurchaseRows, g.Rows)
	}
	// Output:
	// acc_1 account spend=561.50 EUR cpc=0.3694 purchases=49 (from 5 of 7 rows)
	// acc_2 account spend=641.21 USD cpc=n/a purchases=n/a (from 0 of 7 rows)
}

func ExampleValidateAPIKey() {
	fmt.Println(svc.ValidateAPIKey(exampleKey))
	fmt.Println(svc.ValidateAPIKey(exampleKey[:51] + "5"))
	// Output:
	// <nil>
	// svc: invalid api key: the checksum does not match; the key is mistyped or incomplete
}
