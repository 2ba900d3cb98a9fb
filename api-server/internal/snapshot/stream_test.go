package snapshot_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/snapshot"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/uptrace/bun"
)

// insightJSON is one valid insight element of the fixture's acc_a1.
func insightJSON(id, date, extra string) string {
	return fmt.Sprintf(`{"id":%q,"accountId":"acc_a1","campaignId":null,"date":%q,"attributionWindow":"w",
		"purchaseMeasurement":"unavailable","spend":"1.50","ctr":"1","cpc":"1","cpm":"1","impressions":1,"reach":1,
		"clicks":1,"syncedAt":"2026-11-20T06:00:00Z"%s}`, id, date, extra)
}

// manyInsights is a document of n insight rows of acc_a1 (more than one
// staging batch when n is large), with element last replaced by last.
func manyInsights(n int, last string) string {
	var b strings.Builder
	b.WriteString(`{"insights": [`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		if i == n-1 && last != "" {
			b.WriteString(last)
			continue
		}
		b.WriteString(insightJSON(fmt.Sprintf("ins_many_%d", i), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i%300).Format(time.DateOnly), ""))
	}
	b.WriteString(`]}`)
	return b.String()
}

// state is every row of every table the import writes, as text, so that a
// refused import can be shown to change nothing.
func state(t *testing.T, db *bun.DB) string {
	t.Helper()
	var b strings.Builder
	for _, tb := range append(tables, "insights_daily_counts", "insights_daily_account_counts") {
		if tb == "insights_daily_counts" || tb == "insights_daily_account_counts" {
			if db.Dialect().Name().String() != "pg" {
				continue
			}
		}
		rows, err := db.QueryContext(t.Context(), "SELECT * FROM "+tb+" ORDER BY 1, 2")
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			v := make([]any, len(cols))
			p := make([]any, len(cols))
			for i := range v {
				p[i] = &v[i]
			}
			if err := rows.Scan(p...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s %v\n", tb, v)
		}
		rows.Close()
	}
	return b.String()
}

func importString(t *testing.T, db *bun.DB, doc string, f snapshot.Format) (snapshot.Summary, error) {
	t.Helper()
	return snapshot.ImportStream(t.Context(), db, strings.NewReader(doc), snapshot.Options{Format: f})
}

// TestStreamRefusesWhatTheDatabaseWould: values that encoding/json accepts
// but PostgreSQL refuses are refused by validation, with their path, on
// both backends, and nothing changes.
func TestStreamRefusesWhatTheDatabaseWould(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		testenv.Load(t, b.DB, time.Now().UTC())
		before := state(t, b.DB)
		for _, tc := range []struct{ doc, want string }{
			{`{"insights": [` + insightJSON("i1", "2026-01-01", "") + `,` + strings.Replace(insightJSON("i2", "2026-01-01", ""), `"w"`, `"w\u0000x"`, 1) + `]}`,
				`$.insights[1].attributionWindow: contains a NUL character`},
			{`{"insights": [` + insightJSON("i1", "0000-01-01", "") + `]}`, `$.insights[0].date: year 0000 is out of range`},
			{`{"insights": [` + insightJSON("i1", "2026-01-01", `,"rawPayload":{"a":"x\u0000"}`) + `]}`,
				`$.insights[0].rawPayload: contains the escape \u0000`},
			{`{"insights": [` + insightJSON("i1", "2026-01-01", `,"rawPayload":{"a":"\ud800"}`) + `]}`,
				`$.insights[0].rawPayload: contains a lone UTF-16 surrogate`},
			{`{"insights": [` + insightJSON("i1", "2026-01-01", `,"rawPayload":[1e131072]`) + `]}`,
				`$.insights[0].rawPayload: holds a number beyond`},
			{`{"accounts": [{"id":"acc_a1","organizationId":"org_a","platformAdAccountId":"p","accountName":"n\u0000",
				"currency":"EUR","timezone":"UTC","isActive":true,"lastSyncAt":"0000-01-01T00:00:00Z"}]}`,
				`$.accounts[0].accountName: contains a NUL character`},
			{`{"accounts": [{"id":"acc_a1","organizationId":"org_a","platformAdAccountId":"p","accountName":"n",
				"currency":"EUR","timezone":"UTC","isActive":true,"lastSyncAt":"0000-01-01T00:00:00Z"}]}`,
				`$.accounts[0].lastSyncAt: year 0 is out of range`},
		} {
			_, err := importString(t, b.DB, tc.doc, snapshot.FormatJSON)
			hasAll(t, problems(t, err), tc.want)
			// The in-memory path refuses the same.
			if d, err := snapshot.Parse(strings.NewReader(tc.doc)); err == nil {
				hasAll(t, problems(t, snapshot.Validate(d)), tc.want)
			}
		}
		if after := state(t, b.DB); after != before {
			t.Errorf("refused imports changed the database:\nbefore:\n%s\nafter:\n%s", before, after)
		}
		// The escaped backslash before u0000 is an ordinary string.
		if _, err := importString(t, b.DB, `{"insights": [`+insightJSON("ins_ok_bs", "2026-01-01", `,"rawPayload":{"a":"\\u0000"}`)+`]}`, snapshot.FormatJSON); err != nil {
			t.Fatalf("escaped backslash: %v", err)
		}
		if n := count(t, b.DB, "insights_daily"); n != 26 {
			t.Fatalf("insights %d, want 26", n)
		}
	})
}

// TestStreamLastElementInvalid: a long document (several staging batches)
// whose last element is invalid changes nothing and names that element;
// the same document made valid imports every row; duplicate ids (new or
// stored) and rows that would change organization are named with both
// paths.
func TestStreamLastElementInvalid(t *testing.T) {
	const n = 12001
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		testenv.Load(t, b.DB, time.Now().UTC())
		before := state(t, b.DB)
		bad := manyInsights(n, insightJSON("ins_last", "2026-13-01", ""))
		_, err := importString(t, b.DB, bad, snapshot.FormatJSON)
		got := problems(t, err)
		if len(got) != 1 || !strings.HasPrefix(got[0], fmt.Sprintf("$.insights[%d].date: not a date", n-1)) {
			t.Errorf("problems %q", got)
		}
		dup := manyInsights(n, insightJSON("ins_many_7", "2026-01-01", ""))
		_, err = importString(t, b.DB, dup, snapshot.FormatJSON)
		hasAll(t, problems(t, err), fmt.Sprintf(`$.insights[%d]: duplicate id "ins_many_7" (first at $.insights[7])`, n-1))
		moved := manyInsights(n, strings.Replace(insightJSON("ins_b1_acct_0", "2026-01-01", ""), "acc_a1", "acc_a1", 1))
		_, err = importString(t, b.DB, moved, snapshot.FormatJSON)
		hasAll(t, problems(t, err), fmt.Sprintf(`$.insights[%d].id: insight "ins_b1_acct_0" already belongs to another organization`, n-1))
		missing := manyInsights(n, strings.Replace(insightJSON("ins_x", "2026-01-01", ""), `"campaignId":null`, `"campaignId":"cmp_b1"`, 1))
		_, err = importString(t, b.DB, missing, snapshot.FormatJSON)
		hasAll(t, problems(t, err), fmt.Sprintf(`$.insights[%d].campaignId: campaign "cmp_b1" belongs to another account than "acc_a1"`, n-1))
		if after := state(t, b.DB); after != before {
			t.Errorf("refused imports changed the database")
		}

		good := manyInsights(n, "")
		var steps []string
		sum, err := snapshot.ImportStream(t.Context(), b.DB, strings.NewReader(good), snapshot.Options{
			Progress: func(p snapshot.Progress) {
				if len(steps) == 0 || steps[len(steps)-1] != p.Phase {
					steps = append(steps, p.Phase)
				}
			}})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Insights != n || count(t, b.DB, "insights_daily") != 25+n {
			t.Errorf("summary %v, rows %d", sum, count(t, b.DB, "insights_daily"))
		}
		if strings.Join(steps, ",") != "reading,checking,merging,done" {
			t.Errorf("progress phases %v", steps)
		}
		// Again: nothing changes (on PostgreSQL no row is even rewritten).
		again := time.Now().Add(time.Hour)
		if _, err := snapshot.ImportStream(t.Context(), b.DB, strings.NewReader(good), snapshot.Options{Now: again}); err != nil {
			t.Fatal(err)
		}
		if got := count(t, b.DB, "insights_daily"); got != 25+n {
			t.Errorf("rows after re-import %d", got)
		}
		if b.DB.Dialect().Name().String() == "pg" {
			rewritten, err := b.DB.NewSelect().TableExpr("insights_daily").Where("updated_at >= ?", again.Add(-time.Second)).Count(t.Context())
			if err != nil || rewritten != 0 {
				t.Errorf("re-import rewrote %d unchanged rows (%v)", rewritten, err)
			}
			// Nor locked: INSERT … ON CONFLICT DO UPDATE locked every
			// unchanged row before comparing it (xmax set, a WAL record each).
			var locked int
			if err := b.DB.QueryRowContext(t.Context(), `SELECT count(*) FROM insights_daily WHERE id LIKE 'ins_many_%' AND xmax <> '0'::xid`).Scan(&locked); err != nil || locked != 0 {
				t.Errorf("re-import locked %d unchanged rows (%v)", locked, err)
			}
		}
		// A stored id the document repeats, once with other values: refused
		// like a new one (PostgreSQL's merge would apply one repeat).
		stored := state(t, b.DB)
		_, err = importString(t, b.DB, dup, snapshot.FormatJSON)
		hasAll(t, problems(t, err), fmt.Sprintf(`$.insights[%d]: duplicate id "ins_many_7" (first at $.insights[7])`, n-1))
		if after := state(t, b.DB); after != stored {
			t.Errorf("a refused import of a repeated stored id changed the database")
		}
	})
}

// TestStreamNDJSON: NDJSON records, in any order, import like the JSON
// document; problems name the line.
func TestStreamNDJSON(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		nd := `{"kind":"insight","id":"ins_1","accountId":"acc_1","campaignId":"cmp_1","date":"2026-01-02","attributionWindow":"w","purchaseMeasurement":"unavailable","spend":"1","ctr":"1","cpc":"1","cpm":"1","impressions":1,"reach":1,"clicks":1}
{"kind":"campaign","id":"cmp_1","accountId":"acc_1","name":"n","objective":"o","status":"s"}

{"kind":"account","id":"acc_1","organizationId":"org_n","platformAdAccountId":"p","accountName":"n","currency":"EUR","timezone":"UTC","isActive":true}
{"kind":"organization","id":"org_n","subscriptionStatus":"active","members":[{"userId":"u_n","role":"owner"}]}
`
		bad := nd + `{"kind":"insight","id":"ins_2","accountId":"acc_1","date":"2026-01-02","bogus":1}
{"kind":"planet","id":"x"}
{"kind":"leadContact","id":"lead_1","accountId":"acc_zz"}
`
		_, err := importString(t, b.DB, bad, snapshot.FormatNDJSON)
		hasAll(t, problems(t, err), `line 6: $: unknown field "bogus"`, `line 7: $.kind: want one of`)
		for _, tb := range tables {
			if n := count(t, b.DB, tb); n != 0 {
				t.Errorf("%s has %d rows after a refused import", tb, n)
			}
		}
		_, err = importString(t, b.DB, nd+`{"kind":"leadContact","id":"lead_1","accountId":"acc_zz"}`, snapshot.FormatNDJSON)
		hasAll(t, problems(t, err), `line 6: $.accountId: account "acc_zz" is neither in the document nor in the database`)
		sum, err := importString(t, b.DB, nd, snapshot.FormatNDJSON)
		if err != nil {
			t.Fatal(err)
		}
		if sum.String() != "1 organizations, 1 accounts, 1 campaigns, 1 insights, 0 lead contacts" {
			t.Errorf("summary %s", sum)
		}
		if count(t, b.DB, "insights_daily") != 1 || count(t, b.DB, "organization_members") != 1 {
			t.Errorf("rows missing")
		}
	})
}

// TestReimportRemovesUnlistedMembers: an organization whose re-import no
// longer lists a member marks that member removed (an admin's keys stop
// working); one without a members field leaves membership alone.
func TestReimportRemovesUnlistedMembers(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		testenv.Load(t, b.DB, time.Now().UTC())
		active := func() string {
			var ids []string
			if err := b.DB.NewSelect().TableExpr("organization_members").Column("user_id").
				Where("organization_id = 'org_a' AND removed_at IS NULL").Order("user_id").Scan(t.Context(), &ids); err != nil {
				t.Fatal(err)
			}
			return strings.Join(ids, ",")
		}
		if got := active(); got != strings.Join([]string{testenv.AdminA, testenv.MemberA, testenv.OwnerA}, ",") {
			t.Fatalf("members before: %s", got)
		}
		if _, err := importString(t, b.DB, `{"organizations":[{"id":"org_a","subscriptionStatus":"active"}]}`, snapshot.FormatJSON); err != nil {
			t.Fatal(err)
		}
		if got := active(); got != strings.Join([]string{testenv.AdminA, testenv.MemberA, testenv.OwnerA}, ",") {
			t.Errorf("an organization without members changed them: %s", got)
		}
		doc := `{"organizations":[{"id":"org_a","subscriptionStatus":"active","members":[{"userId":"` + testenv.OwnerA + `","role":"owner"}]}]}`
		if _, err := importString(t, b.DB, doc, snapshot.FormatJSON); err != nil {
			t.Fatal(err)
		}
		if got := active(); got != testenv.OwnerA {
			t.Errorf("after a re-import listing only the owner, active members are %s", got)
		}
	})
}
