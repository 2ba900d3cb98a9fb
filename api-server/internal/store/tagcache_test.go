package store_test

import (
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
)

// TestTagCache (PostgreSQL): a page's tag material is kept by its
// organization's data version (the newest import record) and is the
// versions statement's material again as soon as an import record is
// written. A day version moved without an import record shows that the
// kept material was used (the contract: only the import moves versions, and
// it writes the record in the same transaction); an organization without
// any import record is never kept.
func TestTagCache(t *testing.T) {
	b := dbtest.Postgres(t)
	ctx := t.Context()
	today := time.Now().UTC()
	testenv.Seed(t, b.DB, today)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := b.DB.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`SELECT insights_daily_aggregates_refresh()`)
	exec(`INSERT INTO insight_day_versions (organization_id, account_id, date, version)
		SELECT DISTINCT organization_id, account_id, date, 1 FROM insights_daily ON CONFLICT DO NOTHING`)
	importRecord := func(org string) {
		exec(`INSERT INTO insight_imports (organization_id, committed_at, upserts, deletes, changed_days)
			VALUES (?, now(), 1, 0, '[]')`, org)
	}
	bump := func(org string) { // a day version moved, as an import moves it
		exec(`UPDATE insight_day_versions SET version = version + 1 WHERE organization_id = ?`, org)
	}
	st, err := store.New(ctx, b.Handle)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p := store.ListParams{Limit: 101, From: today.AddDate(0, 0, -89).Format(time.DateOnly), To: today.Format(time.DateOnly)}
	for _, r := range []store.Resource{store.Insights, store.Summary} {
		// tagged reads org's page of r as a request without If-None-Match
		// does, and returns its material and row count; fresh is the
		// versions statement's material.
		tagged := func(org string) (string, int) {
			t.Helper()
			var material string
			var n int
			err := st.Conditional(ctx, org, r, p, nil, false, func(_ store.Meta, m string) bool {
				material = m
				return false
			}, func(db *store.Store, pre store.Prelude) (store.Meta, error) {
				if r == store.Summary {
					m, groups, err := db.InsightSummary(ctx, org, store.SummaryParams{Limit: p.Limit, From: p.From, To: p.To,
						Level: "account", GroupBy: "account"}, pre)
					n = len(groups)
					return m, err
				}
				m, page, err := db.InsightsPage(ctx, org, p, pre)
				if err == nil {
					n = len(page.Rows())
					page.Release()
				}
				return m, err
			})
			if err != nil {
				t.Fatal(err)
			}
			return material, n
		}
		fresh := func(org string) string {
			t.Helper()
			_, m, err := st.Versions(ctx, org, r, p, nil)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}

		importRecord("org_a")
		m1, n := tagged("org_a")
		if m1 == "" || m1 != fresh("org_a") || n == 0 {
			t.Fatalf("resource %d, first read: material %q (%d rows), want the versions statement's %q", r, m1, n, fresh("org_a"))
		}
		if m, _ := tagged("org_a"); m != m1 {
			t.Fatalf("resource %d, second read: material %q, want the kept %q", r, m, m1)
		}
		bump("org_a") // no import record: the kept material stands
		if m, _ := tagged("org_a"); m != m1 || fresh("org_a") == m1 {
			t.Fatalf("resource %d, version moved without a record: material %q, want the kept %q (the statement's is %q)", r, m, m1, fresh("org_a"))
		}
		importRecord("org_a") // the import's record: the material is read again
		if m, _ := tagged("org_a"); m == m1 || m != fresh("org_a") {
			t.Fatalf("resource %d, after an import record: material %q, want the versions statement's %q", r, m, fresh("org_a"))
		}

		// org_b without import record: nothing is kept.
		exec(`DELETE FROM insight_imports WHERE organization_id = 'org_b'`)
		b1, _ := tagged("org_b")
		bump("org_b")
		if m, _ := tagged("org_b"); m == b1 || m != fresh("org_b") {
			t.Fatalf("resource %d, org_b (no import record): material %q after a version moved, want the versions statement's %q", r, m, fresh("org_b"))
		}
	}
}
