package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adsnap/svc/e2e/internal/harness"
	"github.com/jackc/pgx/v5"
	"github.com/klauspost/compress/zstd"
)

// TestConditional (issue 43, DESIGN §4c) on built binaries, a database of
// its own and the shipped HAProxy configuration: an unchanged page
// re-requested with its tag answers 304 in at most 400 bytes on the wire;
// after an import restating one account's last 3 days, the other account's
// pages still answer 304 and the restated account's first page 200 with a
// new tag; a 90-day range read in pages, re-read after an import restating
// the last 28 days, answers 304 for at least 65 % of its pages; a revoked
// key with a valid tag gets 401; another organization's request never
// gets 304 with this one's tag; gzip and zstd bodies decode to the identity
// body (generatedAt aside); through HAProxy the tag still validates.
//
// The data versions are the import's to write (issue 45's contract,
// CONTRACT-45.md); until that import lands this test advances them itself,
// as the import would, after each import (versionsAfter): an idempotent
// addition once it does.
func TestConditional(t *testing.T) {
	c := startConditional(t)
	const days, perDay = 90, 20 // 2 accounts × 10 campaigns a day
	c.importInsights(t, days, "1.00")
	page := func(q string) string { return c.url + "/api/v1/developer/insights?" + q }
	window := fmt.Sprintf("from=%s&to=%s", c.today.AddDate(0, 0, -(days-1)).Format(time.DateOnly), c.today.Format(time.DateOnly))

	// 304 on the wire, and its size.
	first := c.get(t, page("limit=100&"+window), "", "")
	tag := first.Header.Get("ETag")
	if first.StatusCode != 200 || !strings.HasPrefix(tag, `W/"`) || first.Header.Get("Cache-Control") != "private, no-cache" {
		t.Fatalf("first read: %d, ETag %q, Cache-Control %q", first.StatusCode, tag, first.Header.Get("Cache-Control"))
	}
	n, status := c.wireBytes(t, page("limit=100&"+window), tag)
	if status != http.StatusNotModified || n > 400 {
		t.Errorf("unchanged page with its tag: %d in %d bytes on the wire, want 304 in ≤ 400", status, n)
	}
	t.Logf("304: %d bytes on the wire", n)

	// Compression: zstd and gzip decode to the identity body.
	for _, enc := range []string{"zstd", "gzip"} {
		r := c.get(t, page("limit=100&"+window), "", enc)
		if r.Header.Get("Content-Encoding") != enc || r.Header.Get("ETag") != tag {
			t.Errorf("%s: Content-Encoding %q, ETag %q (identity's %q)", enc, r.Header.Get("Content-Encoding"), r.Header.Get("ETag"), tag)
		}
		if got, want := stripGeneratedAt(t, r.body), stripGeneratedAt(t, first.body); got != want {
			t.Errorf("%s body decodes to\n%.300s\nnot the identity body\n%.300s", enc, got, want)
		}
		t.Logf("%s: %d bytes sent for %d", enc, r.sent, len(first.body))
	}

	// Through the shipped HAProxy configuration.
	lb, err := harness.StartHAProxyFrom(t.TempDir(), filepath.Join(harness.RepoRoot(), "deploy", "haproxy.cfg"),
		[]string{strings.TrimPrefix(c.url, "http://"), strings.TrimPrefix(c.url, "http://")}) // its two server lines, one svc-api
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lb.Stop)
	lbPage := lb.URL + "/api/v1/developer/insights?limit=100&" + window
	if r := c.get(t, lbPage, tag, ""); r.StatusCode != http.StatusNotModified {
		t.Errorf("through HAProxy with the tag: %d, want 304", r.StatusCode)
	}
	if r := c.get(t, lbPage, "", "zstd"); r.Header.Get("Content-Encoding") != "zstd" || r.Header.Get("ETag") != tag ||
		stripGeneratedAt(t, r.body) != stripGeneratedAt(t, first.body) {
		t.Errorf("through HAProxy, zstd: %d, Content-Encoding %q, ETag %q", r.StatusCode, r.Header.Get("Content-Encoding"), r.Header.Get("ETag"))
	}

	// One account's last 3 days restated.
	acc := map[string]string{}
	for _, a := range []string{"acc_cd1", "acc_cd2"} {
		acc[a] = c.get(t, page("limit=50&accountId="+a+"&"+window), "", "").Header.Get("ETag")
	}
	c.restate(t, []string{"acc_cd1"}, 3, "2.00")
	if r := c.get(t, page("limit=50&accountId=acc_cd2&"+window), acc["acc_cd2"], ""); r.StatusCode != http.StatusNotModified {
		t.Errorf("acc_cd2's page after acc_cd1's last 3 days were restated: %d, want 304", r.StatusCode)
	}
	if r := c.get(t, page("limit=50&accountId=acc_cd1&"+window), acc["acc_cd1"], ""); r.StatusCode != 200 || r.Header.Get("ETag") == acc["acc_cd1"] {
		t.Errorf("acc_cd1's restated page: %d, ETag %q (was %q)", r.StatusCode, r.Header.Get("ETag"), acc["acc_cd1"])
	}

	// The 90-day range in pages, the last 28 days restated, re-read.
	tags := map[int]string{}
	for off := 0; off < days*perDay; off += 100 {
		tags[off] = c.get(t, page(fmt.Sprintf("limit=100&offset=%d&%s", off, window)), "", "").Header.Get("ETag")
	}
	c.restate(t, []string{"acc_cd1", "acc_cd2"}, 28, "3.00")
	same := 0
	for off, old := range tags {
		r := c.get(t, page(fmt.Sprintf("limit=100&offset=%d&%s", off, window)), old, "")
		if r.StatusCode == http.StatusNotModified {
			same++
		} else if r.StatusCode != 200 || r.Header.Get("ETag") == old {
			t.Errorf("offset %d after the restatement: %d, ETag %q (was %q)", off, r.StatusCode, r.Header.Get("ETag"), old)
		}
	}
	if share := float64(same) / float64(len(tags)); share < 0.65 {
		t.Errorf("after restating the last 28 of 90 days: %d of %d pages 304 (%.0f %%), want ≥ 65 %%", same, len(tags), 100*share)
	} else {
		t.Logf("after restating the last 28 of 90 days: %d of %d pages 304 (%.0f %%)", same, len(tags), 100*share)
	}

	// Another organization with this one's tag, a revoked key with a valid one.
	now := c.get(t, page("limit=100&"+window), "", "").Header.Get("ETag")
	if r := c.getKey(t, page("limit=100&"+window), c.other, now, ""); r.StatusCode == http.StatusNotModified || r.Header.Get("ETag") == now {
		t.Errorf("another organization's request with this one's tag: %d, ETag %q", r.StatusCode, r.Header.Get("ETag"))
	}
	c.revoke(t)
	if r := c.get(t, page("limit=100&"+window), now, ""); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("revoked key with a valid tag: %d, want 401", r.StatusCode)
	}
}

// conditional is TestConditional's system: one svc-api on a database of its own.
type conditional struct {
	e            *env // binaries and keys-admin, on this database
	url          string
	dbURL        string
	today        time.Time
	key, other   string
	keyID, owner string
}

// startConditional migrates a fresh database, imports two organizations
// (org_cd with accounts acc_cd1 and acc_cd2, org_cd2), creates their keys
// and starts svc-api on it.
func startConditional(t *testing.T) *conditional {
	t.Helper()
	ctx := t.Context()
	bins, err := binaries()
	if err != nil {
		t.Fatal(err)
	}
	dbURL, drop, err := harness.FreshDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(drop)
	c := &conditional{e: &env{bin: bins, dbURL: dbURL, rec: &recorder{}}, dbURL: dbURL, today: today(), owner: "u_cd_" + harness.RandomHex(4)}
	dbEnv := []string{"SVC_DATABASE_URL=" + dbURL}
	if out, errOut, code, err := harness.Run(ctx, bins.API, dbEnv, "", "migrate"); err != nil || code != 0 {
		t.Fatalf("migrate: %d %v %s%s", code, err, out, errOut)
	}
	doc := map[string]any{"organizations": []map[string]any{
		{"id": "org_cd", "name": "Cond", "subscriptionStatus": "active", "members": []map[string]any{{"userId": c.owner, "role": "owner"}}},
		{"id": "org_cd2", "name": "Cond 2", "subscriptionStatus": "active", "members": []map[string]any{{"userId": c.owner, "role": "owner"}}},
	}}
	var accounts, campaigns []map[string]any
	for i, a := range []string{"acc_cd1", "acc_cd2", "acc_cd3"} {
		org := "org_cd"
		if i == 2 {
			org = "org_cd2"
		}
		accounts = append(accounts, map[string]any{"id": a, "organizationId": org, "platformAdAccountId": "act_" + a,
			"accountName": a, "currency": "EUR", "timezone": "UTC", "isActive": true})
		for k := range 10 {
			campaigns = append(campaigns, map[string]any{"id": fmt.Sprintf("cmp_%s_%d", a, k), "accountId": a,
				"name": "c", "objective": "OUTCOME_SALES", "status": "ACTIVE"})
		}
	}
	doc["accounts"], doc["campaigns"] = accounts, campaigns
	c.importDoc(t, doc)
	for i, org := range []string{"org_cd", "org_cd2"} {
		key, id, err := c.e.keysAdminCreate(ctx, keySpec{"cond" + org, org, c.owner, allScopes}, 30)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			c.key, c.keyID = key, id
		} else {
			c.other = key
		}
	}
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := harness.StartServer(bins.API, port, append(dbEnv,
		"SVC_REDIS_URL="+harness.RedisURL(), "SVC_REDIS_NAMESPACE=cd"+harness.RandomHex(4),
		fmt.Sprintf("SVC_LISTEN_ADDR=127.0.0.1:%d", port), fmt.Sprintf("SVC_SITE_URL=http://127.0.0.1:%d", port),
		"SVC_LIMIT_KEY_PER_MINUTE=1000000", "SVC_LIMIT_ORG_PER_MINUTE=1000000", "SVC_LIMIT_IP_PER_MINUTE=1000000",
		"SVC_DATABASE_DEADLINE=10s"), "serve")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() }) //nolint:errcheck
	c.url = srv.URL
	return c
}

// importDoc imports doc with svc-api import.
func (c *conditional) importDoc(t *testing.T, doc map[string]any) {
	t.Helper()
	b, _ := json.Marshal(doc)
	if out, errOut, code, err := harness.Run(t.Context(), c.e.bin.API, []string{"SVC_DATABASE_URL=" + c.dbURL}, string(b), "import", "-"); err != nil || code != 0 {
		t.Fatalf("import: %d %v %s%s", code, err, out, errOut)
	}
}

// insights are the campaign rows of accounts over the last days days,
// with spend.
func (c *conditional) insights(accounts []string, days int, spend string) []map[string]any {
	var rows []map[string]any
	synced := time.Now().UTC().Format(time.RFC3339)
	for _, a := range accounts {
		for d := range days {
			for k := range 10 {
				rows = append(rows, map[string]any{"id": fmt.Sprintf("ins_%s_%d_%d", a, d, k), "accountId": a,
					"campaignId": fmt.Sprintf("cmp_%s_%d", a, k), "date": c.today.AddDate(0, 0, -d).Format(time.DateOnly),
					"attributionWindow": "7d_click_1d_view", "purchaseMeasurement": "unavailable",
					"spend": spend, "ctr": "1.5", "cpc": "0.5", "cpm": "4.25", "impressions": 1000 + d, "reach": 900,
					"clicks": 15, "syncedAt": synced})
			}
		}
	}
	return rows
}

// importInsights imports both accounts' rows of the last days days, and
// their day versions (versionsAfter).
func (c *conditional) importInsights(t *testing.T, days int, spend string) {
	t.Helper()
	accounts := []string{"acc_cd1", "acc_cd2", "acc_cd3"}
	c.importDoc(t, map[string]any{"insights": c.insights(accounts, days, spend)})
	c.versionsAfter(t, accounts, days)
}

// restate imports accounts' rows of the last days days with a new spend.
func (c *conditional) restate(t *testing.T, accounts []string, days int, spend string) {
	t.Helper()
	c.importDoc(t, map[string]any{"insights": c.insights(accounts, days, spend)})
	c.versionsAfter(t, accounts, days)
}

// versionsAfter advances the versions of accounts' last days days, as the
// import of issue 45 does for the days it changed (CONTRACT-45.md): until
// it lands, nothing else writes them; after, this adds one more step to
// versions that advanced already, which changes no verdict.
func (c *conditional) versionsAfter(t *testing.T, accounts []string, days int) {
	t.Helper()
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, c.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, `INSERT INTO insight_day_versions (organization_id, account_id, date, version)
		SELECT a.organization_id, a.id, d::date, 1
		FROM ad_accounts a, generate_series($2::date - ($3::int - 1), $2::date, interval '1 day') d
		WHERE a.id = ANY($1)
		ON CONFLICT (organization_id, account_id, date) DO UPDATE SET version = insight_day_versions.version + 1`,
		accounts, c.today, days); err != nil {
		t.Fatal(err)
	}
}

// revoke revokes the key of org_cd with keys-admin.
func (c *conditional) revoke(t *testing.T) {
	t.Helper()
	if out, errOut, code, err := harness.Run(t.Context(), c.e.bin.KeysAdmin, []string{"SVC_DATABASE_URL=" + c.dbURL}, "",
		"revoke", "--org", "org_cd", "--user", c.owner, c.keyID); err != nil || code != 0 {
		t.Fatalf("keys-admin revoke: %d %v %s%s", code, err, out, errOut)
	}
}

// condAnswer is a response with its body decoded, and the bytes of the body sent.
type condAnswer struct {
	*http.Response
	body []byte
	sent int
}

// get sends GET url with org_cd's key, If-None-Match tag and
// Accept-Encoding enc (each when not empty), and decodes the body.
func (c *conditional) get(t *testing.T, url, tag, enc string) condAnswer {
	return c.getKey(t, url, c.key, tag, enc)
}

func (c *conditional) getKey(t *testing.T, url, key, tag, enc string) condAnswer {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if tag != "" {
		req.Header.Set("If-None-Match", tag)
	}
	if enc != "" {
		req.Header.Set("Accept-Encoding", enc)
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := condAnswer{Response: resp, body: raw, sent: len(raw)}
	var zr io.Reader
	switch resp.Header.Get("Content-Encoding") {
	case "gzip":
		zr, err = gzip.NewReader(bytes.NewReader(raw))
	case "zstd":
		var d *zstd.Decoder
		d, err = zstd.NewReader(bytes.NewReader(raw))
		if err == nil {
			defer d.Close()
			zr = d
		}
	}
	if err == nil && zr != nil {
		a.body, err = io.ReadAll(zr)
	}
	if err != nil {
		t.Fatalf("%s body: %v", resp.Header.Get("Content-Encoding"), err)
	}
	return a
}

// wireBytes sends GET url with If-None-Match tag twice on one kept-alive
// connection and returns the bytes the second answer took on the wire and
// its status.
func (c *conditional) wireBytes(t *testing.T, url, tag string) (int64, int) {
	t.Helper()
	var n atomic.Int64
	tr := &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			return countingConn{conn, &n}, err
		}}
	defer tr.CloseIdleConnections()
	status := 0
	for range 2 {
		n.Store(0)
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
		req.Header.Set("Authorization", "Bearer "+c.key)
		req.Header.Set("If-None-Match", tag)
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		status = resp.StatusCode
	}
	return n.Load(), status
}

// countingConn counts the bytes read from a connection.
type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countingConn) Read(p []byte) (int, error) {
	k, err := c.Conn.Read(p)
	c.n.Add(int64(k))
	return k, err
}
