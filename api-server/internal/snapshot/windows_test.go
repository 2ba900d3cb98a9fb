package snapshot_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/snapshot"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
)

// TestCompleteWindows: a complete window outside the SPEC's date rules, or
// for an unknown account or an account of an organization the document
// does not import, is refused with its path (JSON and NDJSON) and changes
// nothing; a valid one removes the stored rows of its account and days that
// the document does not carry, logs each as a removal, and leaves the other
// accounts' rows and the carried rows.
func TestCompleteWindows(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		today := time.Now().UTC()
		testenv.Load(t, b.DB, today)
		day := func(back int) string { return today.AddDate(0, 0, -back).Format(time.DateOnly) }
		const acc = `{"id":"acc_a1","organizationId":"org_a","platformAdAccountId":"act_a1","accountName":"Acme EU",
			"currency":"EUR","timezone":"Europe/Berlin","isActive":true,"lastSyncAt":"2026-11-20T06:00:00Z"}`
		win := func(account, from, to string) string {
			return fmt.Sprintf(`{"accountId":%q,"from":%q,"to":%q}`, account, from, to)
		}
		before := state(t, b.DB)
		for _, tc := range []struct{ doc, want string }{
			{`{"accounts":[` + acc + `],"complete":[` + win("acc_a1", day(-1), day(-1)) + `]}`, `$.complete[0].from: ` + day(-1) + ` is in the future`},
			{`{"accounts":[` + acc + `],"complete":[` + win("acc_a1", day(1), day(3)) + `]}`, `$.complete[0]: from ` + day(1) + ` is after to`},
			{`{"accounts":[` + acc + `],"complete":[` + win("acc_a1", day(90), day(0)) + `]}`, `$.complete[0]: from ` + day(90) + ` to ` + day(0) + ` is more than 90 days`},
			{`{"accounts":[` + acc + `],"complete":[` + win("acc_a1", "2026-02-30", day(0)) + `]}`, `$.complete[0].from: not a date`},
			{`{"accounts":[` + acc + `],"complete":[` + win("acc_zz", day(3), day(0)) + `]}`, `$.complete[0].accountId: account "acc_zz" is neither in the document nor in the database`},
			{`{"accounts":[` + acc + `],"complete":[` + win("acc_a1", day(3), day(0)) + `,` + win("acc_b1", day(3), day(0)) + `]}`,
				`$.complete[1].accountId: account "acc_b1" belongs to organization "org_b", which the document does not import`},
		} {
			_, err := importString(t, b.DB, tc.doc, snapshot.FormatJSON)
			hasAll(t, problems(t, err), tc.want)
		}
		nd := `{"kind":"account",` + strings.Join(strings.Fields(acc[1:]), " ") + "\n" + `{"kind":"complete",` + win("acc_b1", day(3), day(0))[1:] + "\n"
		_, err := importString(t, b.DB, nd, snapshot.FormatNDJSON)
		hasAll(t, problems(t, err), `line 2: $.accountId: account "acc_b1" belongs to organization "org_b"`)
		if after := state(t, b.DB); after != before {
			t.Errorf("refused imports changed the database:\nbefore:\n%s\nafter:\n%s", before, after)
		}

		// acc_a1 complete for the last 5 days, carrying one of its rows there.
		var inWindow, others int
		if err := b.DB.QueryRowContext(t.Context(), `SELECT
			(SELECT count(*) FROM insights_daily WHERE account_id = 'acc_a1' AND date >= ?),
			(SELECT count(*) FROM insights_daily WHERE account_id <> 'acc_a1' OR date < ?)`, day(4), day(4)).Scan(&inWindow, &others); err != nil {
			t.Fatal(err)
		}
		if inWindow < 2 {
			t.Fatalf("fixture: %d rows of acc_a1 in the window", inWindow)
		}
		seq := maxSeq(t, b.DB)
		doc := `{"accounts":[` + acc + `],"insights":[` + insightJSON("ins_kept", day(2), "") + `],"complete":[` + win("acc_a1", day(4), day(0)) + `]}`
		sum, err := importString(t, b.DB, doc, snapshot.FormatJSON)
		if err != nil || sum.Windows != 1 {
			t.Fatalf("import: %+v %v", sum, err)
		}
		var left, rest, deletes, upserts int
		if err := b.DB.QueryRowContext(t.Context(), `SELECT
			(SELECT count(*) FROM insights_daily WHERE account_id = 'acc_a1' AND date >= ?0),
			(SELECT count(*) FROM insights_daily WHERE account_id <> 'acc_a1' OR date < ?0),
			(SELECT count(*) FROM insight_changes WHERE seq > ?1 AND kind = 'delete' AND account_id = 'acc_a1' AND date >= ?0),
			(SELECT count(*) FROM insight_changes WHERE seq > ?1 AND kind = 'upsert' AND insight_id = 'ins_kept')`,
			day(4), seq).Scan(&left, &rest, &deletes, &upserts); err != nil {
			t.Fatal(err)
		}
		if left != 1 || rest != others || deletes != inWindow || upserts != 1 {
			t.Errorf("after the window: %d rows of acc_a1 in it (want 1), %d others (want %d), %d removals logged (want %d), %d upserts (want 1)",
				left, rest, others, deletes, inWindow, upserts)
		}
		if !strings.Contains(state(t, b.DB), "ins_kept") {
			t.Error("the carried row is not stored")
		}
	})
}
