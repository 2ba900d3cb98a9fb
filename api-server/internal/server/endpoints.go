package server

// The API's endpoints, declared as data: routes.go mounts serve (serve.go)
// once per value of endpoints, and nothing else answers an API path.

import (
	"context"

	"github.com/adsnap/svc/api-server/internal/query"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/gin-gonic/gin"
)

// endpoint is one GET endpoint of the API. Adding one is a value here, its
// read (a method of Store below, and of store.Store and store.Routed over
// its SQL in store/queries), and its path in openapi.yaml (TestOpenAPIAgrees holds the table and the document to each
// other; TestEveryEndpointChecksTheKey sends it refused keys).
type endpoint struct {
	// path is under BasePath; operation is its operationId in openapi.yaml;
	// name names its read in traces ("query <name>") and in the metric of
	// failed database calls.
	path, operation, name string
	// scope is what the key needs (step 6).
	scope apikey.Scope
	// params are the query parameters step 7 accepts.
	params query.Endpoint
	// read reads the page of rows of a validated query q for the
	// organization orgID, with pre's key state in the same statement on
	// PostgreSQL (store.Prelude). serve calls it only through readRows,
	// which checks the key before it gives the rows to anyone. The page
	// encodes itself (rowsPage.AppendJSON) and respond wraps it in the
	// offset-paged envelope of SPEC §4.
	read readFunc
	// capNote is added to meta.note when a page stops at the offset limit
	// while rows remain: how to reach the rest (DESIGN §4).
	capNote string
	// example is a query the endpoint answers with 200 for any
	// organization: the tests' request to every endpoint.
	example string
	// tagged: the endpoint's 200s carry a conditional-response tag (DESIGN
	// §4c) made from the store's data versions of resource, read like the
	// rows through readRows' key check (a 304 is an answer like a 200:
	// never for a key no longer valid), and a matching If-None-Match is
	// answered 304 there without reading the rows (conditional.go).
	tagged   bool
	resource store.Resource
	// envelope, when not nil, writes the 200 instead of respond's
	// offset-paged envelope: the changes feed's cursors and sync token
	// (changes.go, DESIGN §4b), the freshness answer (freshness.go). It
	// releases the page. More query parameters are a query.Endpoint and
	// what its read passes on.
	envelope envelopeFunc
}

// Store reads snapshot rows (*store.Store, *store.Routed): every
// endpoint's read (endpoints.go) is one of its methods.
type Store interface {
	// The reads return the organization's snapshot meta (and whether
	// p.AccountID is one of its accounts) with a page of rows, in one round
	// trip on PostgreSQL, which reads pre's key state (store.Prelude) too
	// when pre is not nil (only given on PostgreSQL). The caller releases a
	// *Page method's page once encoded.
	AccountsPage(ctx context.Context, orgID string, p store.ListParams, pre store.Prelude) (store.Meta, *store.AccountPage, error)
	CampaignsPage(ctx context.Context, orgID string, p store.ListParams, pre store.Prelude) (store.Meta, *store.CampaignPage, error)
	InsightsPage(ctx context.Context, orgID string, p store.ListParams, pre store.Prelude) (store.Meta, *store.InsightPage, error)
	// InsightSummary reads a page of summary groups (GET /insights/summary).
	InsightSummary(ctx context.Context, orgID string, p store.SummaryParams, pre store.Prelude) (store.Meta, []store.SummaryGroup, error)
	// InsightFreshness reads the last import (GET /insights/freshness).
	InsightFreshness(ctx context.Context, orgID string, pre store.Prelude) (store.Freshness, error)
	// ChangesPage reads a page of the changes feed (GET /insights/changes).
	ChangesPage(ctx context.Context, orgID string, p store.ChangesParams, pre store.Prelude) (store.ChangesMeta, *store.ChangePage, error)
	Ping(ctx context.Context) error
}

// readFunc is an endpoint's read; see endpoint.read. It reads s.store
// (and what else of s it needs: the changes feed's token key).
type readFunc func(ctx context.Context, s *Server, st Store, orgID string, q query.Params, pre store.Prelude) (store.Meta, rowsPage, error)

// envelopeFunc is an endpoint's own envelope; see endpoint.envelope.
type envelopeFunc func(s *Server, c *gin.Context, q *query.Params, m store.Meta, rows rowsPage)

// endpoints are the API's endpoints, in openapi.yaml's order.
var endpoints = [...]endpoint{
	{path: "/accounts", operation: "readAccountSnapshots", name: "accounts", scope: apikey.ScopeAccountsRead,
		params: query.Accounts, read: listRead(Store.AccountsPage), capNote: capNoteAccounts,
		tagged: true, resource: store.Accounts},
	{path: "/campaigns", operation: "readCampaignSnapshots", name: "campaigns", scope: apikey.ScopeCampaignsRead,
		params: query.Campaigns, read: listRead(Store.CampaignsPage), capNote: capNoteCampaigns,
		tagged: true, resource: store.Campaigns},
	{path: "/insights", operation: "readInsightSnapshots", name: "insights", scope: apikey.ScopeInsightsRead,
		params: query.Insights, read: listRead(Store.InsightsPage), capNote: capNoteInsights,
		tagged: true, resource: store.Insights},
	{path: "/insights/summary", operation: "readInsightSummary", name: "insight summary", scope: apikey.ScopeInsightsRead,
		params: query.Summary, read: readSummary, capNote: capNoteSummary, tagged: true, resource: store.Summary, example: "level=account&groupBy=account"},
	{path: "/insights/freshness", operation: "readInsightFreshness", name: "insight freshness", scope: apikey.ScopeInsightsRead,
		params: query.Freshness, read: readFreshness, envelope: answerFreshness},
	{path: "/insights/changes", operation: "readInsightChanges", name: "insight changes", scope: apikey.ScopeInsightsRead,
		params: query.Changes, read: readChanges, envelope: respondChanges},
}

// listRead is the read of a list endpoint: a Store *Page method, one page
// of limit+1 rows (the extra one says whether a next page exists).
func listRead[P rowsPage](page func(Store, context.Context, string, store.ListParams, store.Prelude) (store.Meta, P, error)) readFunc {
	return func(ctx context.Context, _ *Server, st Store, orgID string, q query.Params, pre store.Prelude) (store.Meta, rowsPage, error) {
		m, rows, err := page(st, ctx, orgID, store.ListParams{
			Limit: q.Limit + 1, Offset: q.Offset, AccountID: q.AccountID, From: q.From, To: q.To}, pre)
		return m, rows, err
	}
}

// readSummary is the read of GET /insights/summary (summary.go): a page of
// limit+1 groups.
func readSummary(ctx context.Context, _ *Server, st Store, orgID string, q query.Params, pre store.Prelude) (store.Meta, rowsPage, error) {
	m, groups, err := st.InsightSummary(ctx, orgID, store.SummaryParams{
		Limit: q.Limit + 1, Offset: q.Offset, AccountID: q.AccountID, From: q.From, To: q.To,
		Level: q.Level, GroupBy: q.GroupBy, Options: q.Options,
	}, pre)
	return m, &summaryPage{groups: groups, level: q.Level, opts: q.Options}, err
}
