package e2e

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/e2e/internal/harness"
	svc "github.com/adsnap/svc/sdk-go"
	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The bulk organization: 30,000 insight rows in one 90-day window (about
// 333 a day, so every listing of the window passes the offset limit and
// must be split), 12,000 campaigns over three accounts (past the limit, so
// they are listed per account), and one account with 10,150 rows on one
// day outside the window (no split helps: ErrIncomplete, exit 7).
const (
	orgBulk       = "org_bulk"
	bulkOwner     = "u_bulk_owner"
	bulkInsights  = 30000
	bulkCampaigns = 12000
	bulkDays      = 90
	spikeAccount  = "acc_bulk_spike"
	spikeRows     = 10150
	spikeDaysAgo  = 100
)

var bulkAccounts = []struct{ id, currency string }{
	{"acc_bulk_eur", "EUR"}, {"acc_bulk_usd", "USD"}, {"acc_bulk_jpy", "JPY"},
}

// bulkDocument generates the bulk organization's snapshot document.
func bulkDocument(today time.Time) []byte {
	synced := today.Add(-2 * time.Hour).Format(time.RFC3339)
	doc := harness.Document{Organizations: []harness.Organization{{
		ID: orgBulk, Name: "Bulk", SubscriptionStatus: "active",
		Members: []harness.Member{{UserID: bulkOwner, Role: "owner"}},
	}}}
	for _, a := range append(bulkAccounts, struct{ id, currency string }{spikeAccount, "EUR"}) {
		doc.Accounts = append(doc.Accounts, harness.Account{ID: a.id, OrganizationID: orgBulk, PlatformAdAccountID: "act_" + a.id,
			AccountName: "Bulk " + a.currency, Currency: a.currency, Timezone: "UTC", IsActive: true, LastSyncAt: &synced,
			AccessTokenEncrypted: "enc", RawPayload: json.RawMessage(`{}`)})
	}
	campaignsOf := map[string][]string{}
	for i := range bulkCampaigns {
		acc := bulkAccounts[i%3].id
		id := fmt.Sprintf("cmp_bulk_%05d", i)
		campaignsOf[acc] = append(campaignsOf[acc], id)
		budget := fmt.Sprintf("%d.%02d", i%300, i%100)
		doc.Campaigns = append(doc.Campaigns, harness.Campaign{ID: id, AccountID: acc, Name: "C " + id, Objective: "OUTCOME_SALES",
			Status: "ACTIVE", DailyBudget: &budget, SyncedAt: &synced, RawPayload: json.RawMessage(`{}`)})
	}
	n := 0
	for d := range bulkDays {
		date := today.AddDate(0, 0, -d).Format("2006-01-02")
		for a, acc := range bulkAccounts {
			rows := 111
			if d*3+a < 30 {
				rows++ // 270 × 111 + 30 = 30,000
			}
			for j := range rows {
				in := harness.Insight{ID: fmt.Sprintf("ins_bulk_%06d", n), AccountID: acc.id, Date: date,
					AttributionWindow: "7d_click_1d_view", Spend: fmt.Sprintf("%d.%02d", n%97, n%100),
					CTR: "1.1", CPC: "0.5", CPM: "6", Impressions: int64(1000 + n%500), Reach: 800, Clicks: int64(n % 40),
					Conversions: 3, SyncedAt: &synced, RawPayload: json.RawMessage(`{}`)}
				if j > 0 {
					in.CampaignID = &campaignsOf[acc.id][j]
				}
				// The JPY account always has purchase evidence; the others
				// lack it on some rows, so their purchase totals are n/a.
				if acc.currency != "JPY" && n%11 == 0 {
					in.PurchaseMeasurement = "unavailable"
				} else {
					p, v, r := float64(n%5), float64(n%13)*1.5, 2.0
					in.PurchaseMeasurement, in.Purchases, in.PurchaseValue, in.ROAS = "reported_purchase_value", &p, &v, &r
				}
				doc.Insights = append(doc.Insights, in)
				n++
			}
		}
	}
	spike := today.AddDate(0, 0, -spikeDaysAgo).Format("2006-01-02")
	for i := range spikeRows {
		doc.Insights = append(doc.Insights, harness.Insight{ID: fmt.Sprintf("ins_spike_%05d", i), AccountID: spikeAccount, Date: spike,
			AttributionWindow: "7d_click_1d_view", PurchaseMeasurement: "unavailable", Spend: "1.00", CTR: "1", CPC: "1", CPM: "1",
			Impressions: 10, Reach: 5, Clicks: 1, SyncedAt: &synced, RawPayload: json.RawMessage(`{}`)})
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return b
}

// bulkSetup imports the bulk organization once and returns a key for it.
func (e *env) bulkSetup(t *testing.T) string {
	t.Helper()
	if k, ok := e.keys["bulk"]; ok {
		return k
	}
	ctx := t.Context()
	start := time.Now()
	out, errOut, code, err := harness.Run(ctx, e.bin.API, []string{"SVC_DATABASE_URL=" + e.dbURL}, string(bulkDocument(e.fix.Today)), "import", "-")
	if err != nil || code != 0 {
		t.Fatalf("svc-api import of the bulk organization: exit %d %v\n%s%s", code, err, out, errOut)
	}
	t.Logf("imported %d insight rows and %d campaigns in %s", bulkInsights+spikeRows, bulkCampaigns, time.Since(start).Round(time.Millisecond))
	for _, name := range []string{"bulk", "bulk_pacing"} {
		key, id, err := e.keysAdminCreate(ctx, keySpec{name, orgBulk, bulkOwner, allScopes}, 30)
		if err != nil {
			t.Fatal(err)
		}
		e.keys[name], e.keyIDs[name] = key, id
	}
	return e.keys["bulk"]
}

// sqlIDs returns the ids a query selects.
func sqlIDs(t *testing.T, conn *pgx.Conn, q string, args ...any) map[string]bool {
	t.Helper()
	rows, err := conn.Query(t.Context(), q, args...)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// sameRows checks that got holds each id of want exactly once, and nothing
// else.
func sameRows(t *testing.T, what string, got []string, want map[string]bool) {
	t.Helper()
	seen := make(map[string]bool, len(got))
	twice, extra := 0, 0
	for _, id := range got {
		if seen[id] {
			twice++
		}
		seen[id] = true
		if !want[id] {
			extra++
		}
	}
	missing := 0
	for id := range want {
		if !seen[id] {
			missing++
		}
	}
	t.Logf("%s: %d rows, the store holds %d", what, len(got), len(want))
	if len(got) != len(want) || twice+extra+missing > 0 {
		t.Errorf("%s: %d rows (%d twice, %d not in the store, %d missing), want the store's %d", what, len(got), twice, extra, missing, len(want))
	}
}

// jsonlIDs returns the id of each line of JSON Lines output.
func jsonlIDs(t *testing.T, out string) []string {
	t.Helper()
	var ids []string
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var row struct{ ID string }
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		ids = append(ids, row.ID)
	}
	return ids
}

func testBulkReads(t *testing.T, e *env) {
	key := e.bulkSetup(t)
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, e.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	today := e.fix.Today
	from, to := day(today, -(bulkDays-1)), day(today, 0)
	wantInsights := sqlIDs(t, conn, "SELECT id FROM insights_daily WHERE organization_id = $1 AND date BETWEEN $2 AND $3", orgBulk, from, to)
	wantCampaigns := sqlIDs(t, conn, "SELECT id FROM campaigns WHERE organization_id = $1", orgBulk)
	if len(wantInsights) != bulkInsights || len(wantCampaigns) != bulkCampaigns {
		t.Fatalf("the store holds %d insight rows in the window and %d campaigns, want %d and %d", len(wantInsights), len(wantCampaigns), bulkInsights, bulkCampaigns)
	}
	base := e.replicas[0].URL
	cliEnv := []string{"SVC_SITE_URL=" + base, "SVC_API_KEY=" + key, "NO_COLOR=1"}

	t.Run("ServerNoteAtTheOffsetLimit", func(t *testing.T) {
		resp, body := e.get(t, harness.ClientFrom("127.0.0.30"), fmt.Sprintf("%s/api/v1/developer/insights?from=%s&to=%s&limit=100&offset=10000", base, from, to), key)
		var env struct{ Meta svc.Meta }
		if err := json.Unmarshal(body, &env); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%d %v %.200s", resp.StatusCode, err, body)
		}
		if env.Meta.NextOffset != nil || !strings.Contains(env.Meta.Note, "More rows exist beyond the offset limit") || !strings.Contains(env.Meta.Note, "narrower date range") {
			t.Errorf("meta at the offset limit: nextOffset %v, note %q", env.Meta.NextOffset, env.Meta.Note)
		}
		// Through the SDK: the request id, every bucket's remaining quota and
		// the key's expiry.
		c, err := svc.NewClient(svc.WithAPIKey(key), svc.WithSiteURL(base))
		if err != nil {
			t.Fatal(err)
		}
		page, err := c.Accounts.List(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := page.Response
		if r.RequestID == "" || len(r.RateLimits) != 3 || r.KeyExpiresAt.IsZero() {
			t.Errorf("Response %+v: want a request id, three buckets and the key's expiry", r)
		}
		for _, b := range r.RateLimits {
			if b.Remaining < 0 || b.Quota <= 0 || b.Window != time.Minute {
				t.Errorf("bucket %+v: want its quota, window and remaining requests", b)
			}
		}
		exp, err := time.Parse(time.RFC3339, resp.Header.Get(svc.KeyExpiresHeader))
		if err != nil || time.Until(exp) < 29*24*time.Hour || time.Until(exp) > 31*24*time.Hour {
			t.Errorf("%s = %q, want the key's expiry in 30 days", svc.KeyExpiresHeader, resp.Header.Get(svc.KeyExpiresHeader))
		}
	})

	t.Run("CLIInsightsAll", func(t *testing.T) {
		start := time.Now()
		out, errOut, code, err := harness.Run(ctx, e.bin.CLI, cliEnv, "", "insights", "--all", "--from", from, "--to", to, "-o", "jsonl")
		if err != nil || code != 0 {
			t.Fatalf("svc insights --all: exit %d %v\n%.500s", code, err, errOut)
		}
		sameRows(t, "svc insights --all -o jsonl", jsonlIDs(t, out), wantInsights)
		t.Logf("took %s", time.Since(start).Round(time.Millisecond))
	})

	t.Run("CLICampaignsAll", func(t *testing.T) {
		out, errOut, code, err := harness.Run(ctx, e.bin.CLI, cliEnv, "", "campaigns", "--all", "-o", "jsonl")
		if err != nil || code != 0 {
			t.Fatalf("svc campaigns --all: exit %d %v\n%.500s", code, err, errOut)
		}
		sameRows(t, "svc campaigns --all -o jsonl", jsonlIDs(t, out), wantCampaigns)
	})

	t.Run("CLISummary", func(t *testing.T) {
		out, errOut, code, err := harness.Run(ctx, e.bin.CLI, cliEnv, "", "insights", "--summary", "--from", from, "--to", to, "-o", "json")
		if err != nil || code != 0 {
			t.Fatalf("svc insights --summary: exit %d %v\n%.500s", code, err, errOut)
		}
		var got []struct {
			Currency, Level string
			Rows            int
			Spend           string
			Impressions     int64
			Clicks          int64
			Purchases       json.RawMessage
			PurchaseValue   json.RawMessage
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v\n%.300s", err, out)
		}
		rows, err := conn.Query(ctx, `SELECT currency, CASE WHEN campaign_id IS NULL THEN 'account' ELSE 'campaign' END,
			count(*), sum(spend)::text, sum(impressions), sum(clicks),
			(sum(purchases) FILTER (WHERE purchase_measurement <> 'unavailable'))::text,
			(sum(purchase_value) FILTER (WHERE purchase_measurement <> 'unavailable'))::text
			FROM insights_daily WHERE organization_id = $1 AND date BETWEEN $2 AND $3 GROUP BY 1, 2 ORDER BY 1, 2`, orgBulk, from, to)
		if err != nil {
			t.Fatal(err)
		}
		type sums struct {
			currency, level     string
			rows                int
			spend               string
			impressions, clicks int64
			purchases, value    *string
		}
		want, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (sums, error) {
			var s sums
			err := r.Scan(&s.currency, &s.level, &s.rows, &s.spend, &s.impressions, &s.clicks, &s.purchases, &s.value)
			return s, err
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%d groups, SQL has %d:\n%s", len(got), len(want), out)
		}
		sameNumber := func(a string, b *string) bool {
			if b == nil {
				return a == "null"
			}
			x, ok1 := new(big.Rat).SetString(strings.Trim(a, `"`))
			y, ok2 := new(big.Rat).SetString(*b)
			return ok1 && ok2 && x.Cmp(y) == 0
		}
		for i, w := range want {
			g := got[i]
			if g.Currency != w.currency || g.Level != w.level || g.Rows != w.rows || !sameNumber(g.Spend, &w.spend) ||
				g.Impressions != w.impressions || g.Clicks != w.clicks ||
				!sameNumber(string(g.Purchases), w.purchases) || !sameNumber(string(g.PurchaseValue), w.value) {
				t.Errorf("group %d: svc %+v (purchases %s, value %s), SQL %+v", i, g, g.Purchases, g.PurchaseValue, w)
			}
		}
	})

	t.Run("SDKAll", func(t *testing.T) {
		c, err := svc.NewClient(svc.WithAPIKey(key), svc.WithSiteURL(base))
		if err != nil {
			t.Fatal(err)
		}
		f, _ := svc.ParseDate(from)
		tt, _ := svc.ParseDate(to)
		var ids []string
		var prev *svc.Insight
		for row, err := range c.Insights.All(ctx, &svc.InsightListOptions{From: f, To: tt}) {
			if err != nil {
				t.Fatalf("Insights.All after %d rows: %v", len(ids), err)
			}
			if prev != nil && (row.Date.After(*prev.Date) || *row.Date == *prev.Date && row.ID <= prev.ID) {
				t.Fatalf("row %s (%s) after %s (%s): not in the documented order", row.ID, row.Date, prev.ID, prev.Date)
			}
			r := row
			prev = &r
			ids = append(ids, row.ID)
		}
		sameRows(t, "Insights.All", ids, wantInsights)
		ids = ids[:0]
		for row, err := range c.Campaigns.All(ctx, nil) {
			if err != nil {
				t.Fatalf("Campaigns.All after %d rows: %v", len(ids), err)
			}
			ids = append(ids, row.ID)
		}
		sameRows(t, "Campaigns.All", ids, wantCampaigns)
	})

	t.Run("MCPCursor", func(t *testing.T) {
		cmd := exec.Command(e.bin.CLI, "mcp")
		cmd.Env = append(os.Environ(), "SVC_API_KEY="+key, "SVC_SITE_URL="+base)
		stderr := &harness.SyncBuffer{}
		cmd.Stderr = stderr
		client := mcp.NewClient(&mcp.Implementation{Name: "svc-e2e-bulk", Version: "1.0.0"}, nil)
		session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("connect to svc mcp: %v\n%s", err, stderr)
		}
		defer session.Close()
		read := func(tool string, args map[string]any) []string {
			var ids []string
			for calls := 1; ; calls++ {
				res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
				if err != nil || res.IsError {
					t.Fatalf("%s call %d: %v %v\n%s", tool, calls, err, res, stderr)
				}
				var sc struct {
					Complete bool
					Cursor   *string
				}
				var table map[string]any
				raw, _ := json.Marshal(res.StructuredContent)
				if err := json.Unmarshal(raw, &sc); err != nil || json.Unmarshal(raw, &table) != nil {
					t.Fatal(err)
				}
				rows := tableRows(t, table)
				if len(rows) > 100 {
					t.Fatalf("%s call %d returned %d rows, more than the bound", tool, calls, len(rows))
				}
				for _, r := range rows {
					ids = append(ids, r.(map[string]any)["id"].(string))
				}
				if sc.Complete {
					t.Logf("%s: %d calls", tool, calls)
					return ids
				}
				if sc.Cursor == nil {
					t.Fatalf("%s call %d: complete false without a cursor", tool, calls)
				}
				args = map[string]any{"cursor": *sc.Cursor, "limit": 100}
			}
		}
		sameRows(t, "svc_insights with cursor", read("svc_insights", map[string]any{"from": from, "to": to, "limit": 100}), wantInsights)
		sameRows(t, "svc_campaigns with cursor", read("svc_campaigns", map[string]any{"limit": 100}), wantCampaigns)
	})

	t.Run("OneAccountDayPastTheLimit", func(t *testing.T) {
		spike := day(today, -spikeDaysAgo)
		out, errOut, code, err := harness.Run(ctx, e.bin.CLI, cliEnv, "", "insights", "--all", "--from", spike, "--to", spike, "--accountId", spikeAccount, "-o", "jsonl")
		if err != nil || code != 7 {
			t.Fatalf("svc insights --all over %d rows of one account and one day: exit %d %v, want 7\n%.500s", spikeRows, code, err, errOut)
		}
		ids := jsonlIDs(t, out)
		if len(ids) != svc.MaxOffset+svc.MaxLimit || !strings.Contains(errOut, "incomplete") || !strings.Contains(errOut, fmt.Sprintf("%d rows were printed", len(ids))) {
			t.Errorf("%d rows printed; stderr %q", len(ids), errOut)
		}
		c, err := svc.NewClient(svc.WithAPIKey(key), svc.WithSiteURL(base))
		if err != nil {
			t.Fatal(err)
		}
		d, _ := svc.ParseDate(spike)
		n := 0
		var last error
		for _, err := range c.Insights.All(ctx, &svc.InsightListOptions{From: d, To: d}) {
			if err != nil {
				last = err
				break
			}
			n++
		}
		inc, ok := errors.AsType[*svc.IncompleteError](last)
		if !errors.Is(last, svc.ErrIncomplete) || !ok || inc.Rows != n {
			t.Errorf("Insights.All of the day (every account): %d rows, then %v; want ErrIncomplete with the rows read", n, last)
		}
		t.Logf("error: %v", last)
	})
}

// testBulkPacing reads more than 100 pages with one key under the SPEC's
// limits (60 a minute per key, GCRA with a burst of 60) and checks that not
// one answer is a 429; it prints its duration beside the least duration the
// limits allow. It is the suite's one slow test (about 40 s).
func testBulkPacing(t *testing.T, e *env) {
	e.bulkSetup(t)
	key := e.keys["bulk_pacing"]
	replicas := e.startDefaultLimitReplicas(t)
	c, err := svc.NewClient(svc.WithAPIKey(key), svc.WithSiteURL(replicas[0].URL),
		svc.WithHooks(svc.Hooks{OnResponse: func(r *svc.Response) {
			if r.StatusCode == 429 {
				t.Errorf("a 429 answer (request id %s)", r.RequestID)
			}
		}}))
	if err != nil {
		t.Fatal(err)
	}
	var pages, limited, paced int
	ctx := svc.ContextWithHooks(t.Context(), svc.Hooks{
		OnResponse: func(r *svc.Response) {
			if r.Meta != nil {
				pages++
			}
		},
		OnWait: func(w svc.Wait) {
			switch w.Reason {
			case svc.WaitRateLimited:
				limited++
			case svc.WaitPacing:
				paced++
			}
		},
	})
	f := svc.DateOf(e.fix.Today.AddDate(0, 0, -29))
	start := time.Now()
	rows := 0
	for _, err := range c.Insights.All(ctx, &svc.InsightListOptions{From: f, To: svc.DateOf(e.fix.Today)}) {
		if err != nil {
			t.Fatalf("after %d rows: %v", rows, err)
		}
		rows++
	}
	took := time.Since(start)
	// GCRA at 60 a minute with a burst of 60: 60 requests at once, then one
	// a second, so n requests take at least n−60 seconds.
	least := time.Duration(max(pages-60, 0)) * time.Second
	fmt.Printf("bulk pacing: %d rows in %d pages with the SPEC limits: %s (least the limits allow: %s), %d paced waits, %d answers 429\n",
		rows, pages, took.Round(100*time.Millisecond), least, paced, limited)
	t.Logf("%d rows in %d pages: %s (least the limits allow: %s), %d paced waits, %d answers 429", rows, pages, took.Round(100*time.Millisecond), least, paced, limited)
	if pages < 100 || limited != 0 {
		t.Errorf("%d pages, %d answers 429: want at least 100 pages and no 429", pages, limited)
	}
	if took < least {
		t.Errorf("took %s, less than the limits allow (%s): the limits were not the SPEC's", took, least)
	}
}
