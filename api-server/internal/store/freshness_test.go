package store_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
)

// TestInsightFreshness: the newest insight_imports row of the organization
// (inserted here as the import of issue 45 writes it), none for another
// organization, on both dialects.
func TestInsightFreshness(t *testing.T) {
	today := time.Now().UTC()
	for _, b := range []dbtest.Backend{dbtest.Postgres(t), dbtest.SQLite(t)} {
		ctx := t.Context()
		testenv.Seed(t, b.DB, today)
		st, err := store.New(ctx, b.Handle)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		// What the fixture's import recorded, if the import writes the
		// table already; then two imports of our own, the newest last.
		before, err := st.InsightFreshness(ctx, "org_b", nil)
		if err != nil {
			t.Fatal(err)
		}
		at := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
		for i, days := range []string{`["2026-11-01"]`, `["2026-11-22","2026-11-23"]`} {
			var stamp any = at.Add(time.Duration(i) * time.Hour)
			if b.Name != "postgres" {
				stamp = at.Add(time.Duration(i) * time.Hour).Format(time.RFC3339Nano)
			}
			if _, err := b.DB.ExecContext(ctx, `INSERT INTO insight_imports (organization_id, committed_at, upserts, deletes, changed_days) VALUES ('org_a', ?, ?, 1, ?)`,
				stamp, 10+i, days); err != nil {
				t.Fatalf("%s: %v", b.Name, err)
			}
		}
		f, err := st.InsightFreshness(ctx, "org_a", nil)
		if err != nil {
			t.Fatalf("%s: %v", b.Name, err)
		}
		if !f.Imported || !f.CommittedAt.Equal(at.Add(time.Hour)) || f.Upserts != 11 || f.Deletes != 1 ||
			!reflect.DeepEqual(f.ChangedDays, []string{"2026-11-22", "2026-11-23"}) || f.DataAsOf.IsZero() {
			t.Errorf("%s: %+v", b.Name, f)
		}
		after, err := st.InsightFreshness(ctx, "org_b", nil)
		if err != nil || !reflect.DeepEqual(after, before) || after.ChangedDays == nil {
			t.Errorf("%s: another organization's freshness moved: %+v, was %+v (%v)", b.Name, after, before, err)
		}
	}
}
