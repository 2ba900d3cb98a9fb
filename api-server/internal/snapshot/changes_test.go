package snapshot_test

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/snapshot"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/uptrace/bun"
)

// modelRow is what the property test expects of a stored insight row.
type modelRow struct {
	account, campaign, date, spend string
	clicks                         int64
	purchases                      *float64
	measurement                    string
	synced                         string // RFC 3339, "" for none
}

// dayKey is an (account, day) of the test's one organization.
type dayKey struct{ account, date string }

// changeModel is the property test's expectation of the stored rows.
type changeModel struct {
	rows  map[string]modelRow
	today time.Time
	next  int
	// usd: acc_p2's currency is USD (else EUR); a step may switch it,
	// which changes every stored row of acc_p2 (the rows repeat it).
	usd bool
}

var propAccounts = []string{"acc_p1", "acc_p2"}
var propCampaigns = map[string][]string{"acc_p1": {"cmp_p1", "cmp_p3"}, "acc_p2": {"cmp_p2"}}

func (m *changeModel) day(back int) string {
	return m.today.AddDate(0, 0, -back).Format(time.DateOnly)
}

// randomRow is a new value of a row of account acc.
func (m *changeModel) randomRow(rng *rand.Rand, acc string) modelRow {
	r := modelRow{account: acc, date: m.day(rng.IntN(20)), clicks: rng.Int64N(50),
		spend: fmt.Sprintf("%d.%02d", rng.IntN(100), rng.IntN(100)), measurement: "reported_purchase_value"}
	if c := propCampaigns[acc]; rng.IntN(3) > 0 {
		r.campaign = c[rng.IntN(len(c))]
	}
	if rng.IntN(4) == 0 {
		r.measurement = "unavailable"
	}
	if rng.IntN(3) > 0 {
		p := float64(rng.IntN(20)) / 4
		r.purchases = &p
	}
	r.synced = m.randomSynced(rng)
	return r
}

// randomSynced is a sync time in the last 20 days, or none (a third).
func (m *changeModel) randomSynced(rng *rand.Rand) string {
	if rng.IntN(3) == 0 {
		return ""
	}
	return m.today.Add(-time.Duration(rng.IntN(20*24*60)) * time.Minute).Format(time.RFC3339)
}

// propDocument is the organization, its accounts and campaigns, and rows.
func propDocument(rows map[string]modelRow, windows []snapshot.Window, usd bool) *snapshot.Document {
	yes := true
	doc := &snapshot.Document{
		Organizations: []snapshot.Organization{{ID: "org_p", Name: "P", SubscriptionStatus: "active"}},
		Complete:      windows,
	}
	for _, a := range propAccounts {
		cur := "EUR"
		if usd && a == "acc_p2" {
			cur = "USD"
		}
		doc.Accounts = append(doc.Accounts, snapshot.Account{ID: a, OrganizationID: "org_p", PlatformAdAccountID: "p_" + a,
			AccountName: a, Currency: cur, Timezone: "UTC", IsActive: &yes})
		for _, c := range propCampaigns[a] {
			doc.Campaigns = append(doc.Campaigns, snapshot.Campaign{ID: c, AccountID: a, Name: c, Objective: "o", Status: "ACTIVE"})
		}
	}
	for _, id := range slices.Sorted(maps.Keys(rows)) {
		r := rows[id]
		in := snapshot.Insight{ID: id, AccountID: r.account, Date: r.date, AttributionWindow: "7d_click",
			PurchaseMeasurement: r.measurement, Spend: r.spend, CTR: "1", CPC: "1", CPM: "1",
			Impressions: ptr(int64(100)), Reach: ptr(int64(50)), Clicks: ptr(r.clicks), Purchases: r.purchases}
		if r.campaign != "" {
			in.CampaignID = ptr(r.campaign)
		}
		if r.synced != "" {
			in.SyncedAt = ptr(r.synced)
		}
		doc.Insights = append(doc.Insights, in)
	}
	return doc
}

func ptr[T any](v T) *T { return &v }

// step is one import of the property test and what it must change.
type step struct {
	doc     *snapshot.Document
	upserts map[string]modelRow // rows added or changed, with their new values
	removed map[string]modelRow // rows a complete window removes, as they were
	touched map[dayKey]bool     // days whose version must advance
}

// nextStep draws the next import: an identical re-import of the stored
// rows, or some stored rows carried (unchanged, restated, moved to another
// day or campaign), new rows, and complete windows that remove the stored
// rows they hold and the document does not carry.
func (m *changeModel) nextStep(rng *rand.Rand) step {
	s := step{upserts: map[string]modelRow{}, removed: map[string]modelRow{}, touched: map[dayKey]bool{}}
	carried := map[string]modelRow{}
	if rng.IntN(5) == 0 {
		s.doc = propDocument(m.rows, nil, m.usd)
		return s
	}
	switched := rng.IntN(6) == 0
	if switched {
		m.usd = !m.usd
	}
	for id, r := range m.rows {
		if rng.IntN(3) > 0 {
			continue
		}
		n := r
		switch rng.IntN(5) {
		case 0: // restated, at another sync time (earlier ones too: the newest may go)
			n.spend, n.clicks, n.synced = fmt.Sprintf("%d.5", rng.IntN(100)), r.clicks+1, m.randomSynced(rng)
		case 1: // moved to another day
			n.date = m.day(rng.IntN(20))
		case 2: // another campaign, or the account level
			n.campaign = m.randomRow(rng, r.account).campaign
		case 3: // the same value written with another scale: a change of the returned text
			n.spend += "0"
		}
		carried[id] = n
	}
	for range rng.IntN(8) {
		m.next++
		carried[fmt.Sprintf("ins_p_%03d", m.next)] = m.randomRow(rng, propAccounts[rng.IntN(2)])
	}
	var windows []snapshot.Window
	if rng.IntN(3) == 0 {
		acc := propAccounts[rng.IntN(2)]
		to := rng.IntN(15)
		w := snapshot.Window{AccountID: acc, From: m.day(to + rng.IntN(6)), To: m.day(to)}
		windows = append(windows, w)
		for id, r := range m.rows {
			if _, ok := carried[id]; !ok && r.account == acc && r.date >= w.From && r.date <= w.To {
				s.removed[id] = r
				s.touched[dayKey{r.account, r.date}] = true
			}
		}
	}
	for id, n := range carried {
		old, ok := m.rows[id]
		if ok && sameRow(old, n) {
			continue
		}
		s.upserts[id] = n
		s.touched[dayKey{n.account, n.date}] = true
		if ok {
			s.touched[dayKey{old.account, old.date}] = true
		}
	}
	if switched { // every other stored row of acc_p2 changes too
		for id, r := range m.rows {
			if _, gone := s.removed[id]; !gone && r.account == "acc_p2" {
				if _, ok := s.upserts[id]; !ok {
					s.upserts[id] = r
					s.touched[dayKey{r.account, r.date}] = true
				}
			}
		}
	}
	s.doc = propDocument(carried, windows, m.usd)
	return s
}

// sameRow reports whether two values of a row are stored alike (decimals
// compare as text: the API returns "1.50" and "1.5" differently).
func sameRow(a, b modelRow) bool {
	pa, pb := a.purchases, b.purchases
	a.purchases, b.purchases = nil, nil
	return a == b && (pa == nil) == (pb == nil) && (pa == nil || *pa == *pb)
}

// TestImportChangeLogProperty runs random sequences of imports on
// PostgreSQL and SQLite and checks after each one: the change log holds
// exactly one entry per row added, changed or removed, at its day, after
// every earlier entry; exactly the touched days' versions advanced, by one;
// no unchanged row was rewritten; the import record says what changed; the
// rows are the expected ones; and (PostgreSQL) the per-day counts and sums
// equal a recomputation from the rows.
func TestImportChangeLogProperty(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		ctx := t.Context()
		for seed := range uint64(3) {
			rng := rand.New(rand.NewPCG(seed, 45))
			m := &changeModel{rows: map[string]modelRow{}, today: time.Now().UTC().Truncate(24 * time.Hour)}
			for i := range 10 {
				s := m.nextStep(rng)
				now := time.Now().UTC()
				lastSeq := maxSeq(t, b.DB)
				versions := dayVersions(t, b.DB)
				if _, err := snapshot.Import(ctx, b.DB, s.doc, now); err != nil {
					t.Fatalf("seed %d import %d: %v", seed, i, err)
				}
				for id, r := range s.upserts {
					m.rows[id] = r
				}
				for id := range s.removed {
					delete(m.rows, id)
				}
				where := fmt.Sprintf("seed %d import %d (%d upserts, %d removals)", seed, i, len(s.upserts), len(s.removed))
				checkChanges(t, b.DB, where, lastSeq, s)
				checkVersions(t, versions, dayVersions(t, b.DB), s.touched, where)
				checkRows(t, b.DB, where, m.rows, now, len(s.upserts))
				checkImportRecord(t, b.DB, where, s)
				checkDataAsOf(t, b.DB, where, m.rows, now)
				if b.Name == "postgres" {
					checkAggregates(t, b.DB, where)
				}
			}
			if _, err := b.DB.ExecContext(ctx, `DELETE FROM insights_daily`); err != nil {
				t.Fatal(err)
			}
			if b.Name == "postgres" {
				if _, err := b.DB.ExecContext(ctx, `SELECT insights_daily_aggregates_refresh()`); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}

func maxSeq(t *testing.T, db *bun.DB) int64 {
	t.Helper()
	var n sql.NullInt64
	if err := db.QueryRowContext(t.Context(), `SELECT max(seq) FROM insight_changes`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n.Int64
}

func dayVersions(t *testing.T, db *bun.DB) map[dayKey]int64 {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), `SELECT account_id, CAST(date AS text), version FROM insight_day_versions WHERE organization_id = 'org_p'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[dayKey]int64{}
	for rows.Next() {
		var k dayKey
		var v int64
		if err := rows.Scan(&k.account, &k.date, &v); err != nil {
			t.Fatal(err)
		}
		out[k] = v
	}
	return out
}

func checkChanges(t *testing.T, db *bun.DB, where string, lastSeq int64, s step) {
	t.Helper()
	q := `SELECT insight_id, account_id, CAST(date AS text), kind, seq FROM insight_changes WHERE seq > ? ORDER BY seq`
	if db.Dialect().Name().String() == "pg" {
		// Commit order: after every earlier transaction's entries, one txid.
		var txids, older int
		if err := db.QueryRowContext(t.Context(), `SELECT count(DISTINCT txid),
			(SELECT count(*) FROM insight_changes o WHERE o.seq <= ?0 AND o.txid >= (SELECT min(txid) FROM insight_changes WHERE seq > ?0))
			FROM insight_changes WHERE seq > ?0`, lastSeq).Scan(&txids, &older); err != nil {
			t.Fatal(err)
		}
		if txids > 1 || older > 0 {
			t.Errorf("%s: the new entries have %d txids, %d earlier entries are not before them", where, txids, older)
		}
	}
	rows, err := db.QueryContext(t.Context(), q, lastSeq)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	for rows.Next() {
		var id, acc, date, kind string
		var seq int64
		if err := rows.Scan(&id, &acc, &date, &kind, &seq); err != nil {
			t.Fatal(err)
		}
		if seen[id] {
			t.Errorf("%s: %s logged twice", where, id)
		}
		seen[id] = true
		want, up := s.upserts[id]
		if !up {
			want = s.removed[id]
		}
		switch {
		case up && kind == "upsert", !up && kind == "delete" && want.date != "":
			if acc != want.account || date != want.date {
				t.Errorf("%s: %s logged at %s %s, want %s %s", where, id, acc, date, want.account, want.date)
			}
		default:
			t.Errorf("%s: unexpected entry %s %s", where, kind, id)
		}
	}
	if n := len(s.upserts) + len(s.removed); len(seen) != n {
		t.Errorf("%s: %d entries, want %d", where, len(seen), n)
	}
}

func checkVersions(t *testing.T, before, after map[dayKey]int64, touched map[dayKey]bool, where string) {
	t.Helper()
	for k, v := range after {
		want := before[k]
		if touched[k] {
			want++
		}
		if v != want {
			t.Errorf("%s: day %v version %d, want %d (touched %v)", where, k, v, want, touched[k])
		}
	}
	for k := range touched {
		if _, ok := after[k]; !ok {
			t.Errorf("%s: touched day %v has no version", where, k)
		}
	}
}

func checkRows(t *testing.T, db *bun.DB, where string, want map[string]modelRow, now time.Time, written int) {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), `SELECT id, account_id, coalesce(campaign_id, ''), CAST(date AS text), clicks FROM insights_daily WHERE organization_id = 'org_p'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id string
		var r modelRow
		if err := rows.Scan(&id, &r.account, &r.campaign, &r.date, &r.clicks); err != nil {
			t.Fatal(err)
		}
		n++
		w, ok := want[id]
		if !ok || w.account != r.account || w.campaign != r.campaign || w.date != r.date || w.clicks != r.clicks {
			t.Errorf("%s: stored %s %+v, want %+v (%v)", where, id, r, w, ok)
		}
	}
	if n != len(want) {
		t.Errorf("%s: %d rows stored, want %d", where, n, len(want))
	}
	var rewritten int
	if err := db.QueryRowContext(t.Context(), `SELECT count(*) FROM insights_daily WHERE updated_at >= ?`, now).Scan(&rewritten); err != nil {
		t.Fatal(err)
	}
	if rewritten != written {
		t.Errorf("%s: %d rows written, want %d", where, rewritten, written)
	}
}

func checkImportRecord(t *testing.T, db *bun.DB, where string, s step) {
	t.Helper()
	var ups, dels int
	var days string
	if err := db.QueryRowContext(t.Context(), `SELECT upserts, deletes, CAST(changed_days AS text) FROM insight_imports
		WHERE organization_id = 'org_p' ORDER BY id DESC LIMIT 1`).Scan(&ups, &dels, &days); err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	for k := range s.touched {
		set[k.date] = true
	}
	var want []string
	for _, d := range slices.Sorted(maps.Keys(set)) {
		want = append(want, `"`+d+`"`)
	}
	if ups != len(s.upserts) || dels != len(s.removed) || strings.ReplaceAll(days, " ", "") != "["+strings.Join(want, ",")+"]" {
		t.Errorf("%s: import record %d upserts, %d deletes, days %s; want %d, %d, %v", where, ups, dels, days, len(s.upserts), len(s.removed), want)
	}
}

// checkDataAsOf: the organization's data time is its rows' newest sync
// time (its accounts and campaigns have none), or the import's time when
// no row has one.
func checkDataAsOf(t *testing.T, db *bun.DB, where string, rows map[string]modelRow, now time.Time) {
	t.Helper()
	want := now.Truncate(time.Microsecond) // as the databases store it
	newest := ""
	for _, r := range rows {
		newest = max(newest, r.synced) // RFC 3339 in UTC sorts as time
	}
	if newest != "" {
		var err error
		if want, err = time.Parse(time.RFC3339, newest); err != nil {
			t.Fatal(err)
		}
	}
	var got store.OrganizationSnapshot
	if err := db.NewSelect().Model(&got).Where("organization_id = ?", "org_p").Scan(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !got.DataAsOf.Equal(want) {
		t.Errorf("%s: dataAsOf %s, want %s", where, got.DataAsOf.UTC().Format(time.RFC3339Nano), want.UTC().Format(time.RFC3339Nano))
	}
}

// checkAggregates compares the per-day counts and sums with a
// recomputation from the rows (written out here, not the migration's
// function).
func checkAggregates(t *testing.T, db *bun.DB, where string) {
	t.Helper()
	const sums = `SELECT organization_id, account_id, coalesce(campaign_id, '') AS campaign_key, date, currency,
		count(*) AS n, sum(spend) AS spend, sum(impressions)::bigint AS impressions, sum(clicks)::bigint AS clicks,
		count(*) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchases IS NOT NULL) AS purchase_rows,
		sum(purchases::numeric) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchases IS NOT NULL) AS purchases,
		count(*) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchase_value IS NOT NULL) AS purchase_value_rows,
		sum(purchase_value::numeric) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchase_value IS NOT NULL) AS purchase_value,
		sum(spend) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchase_value IS NOT NULL) AS value_spend
		FROM insights_daily GROUP BY 1, 2, 3, 4, 5`
	for _, c := range []struct{ name, stored, want string }{
		{"sums", `SELECT * FROM insights_daily_sums WHERE n > 0`, sums},
		{"account counts", `SELECT * FROM insights_daily_account_counts WHERE n > 0`,
			`SELECT organization_id, account_id, date, count(*), max(synced_at) FROM insights_daily GROUP BY 1, 2, 3`},
		{"day counts", `SELECT * FROM insights_daily_counts WHERE n > 0`,
			`SELECT organization_id, date, count(*) FROM insights_daily GROUP BY 1, 2`},
	} {
		var wrong int
		q := `SELECT count(*) FROM (((` + c.stored + `) EXCEPT (` + c.want + `)) UNION ALL ((` + c.want + `) EXCEPT (` + c.stored + `))) AS d`
		if err := db.QueryRowContext(context.Background(), q).Scan(&wrong); err != nil {
			t.Fatal(err)
		}
		if wrong != 0 {
			t.Errorf("%s: %s: %d rows differ from a recomputation", where, c.name, wrong)
		}
	}
}
