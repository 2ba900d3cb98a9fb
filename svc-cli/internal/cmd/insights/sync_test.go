package insights

import (
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	svc "github.com/adsnap/svc/sdk-go"
	"github.com/adsnap/svc/sdk-go/svctest"

	"github.com/adsnap/svc/svc-cli/internal/localcopy"
	"github.com/adsnap/svc/svc-cli/internal/testapi"
)

func syncRow(i int, spend string) svctest.Row {
	return svctest.Row{AccountID: "acc_1", JSON: fmt.Sprintf(`{"id":"i%04d","platformAdAccountId":"act_1","attributionWindow":"7d_click_1d_view","campaignId":null,"date":"2026-11-%02dT00:00:00Z","syncedAt":null,"account":{"currency":"EUR","timezone":"UTC"},"purchaseMeasurement":"unavailable","spend":%q,"ctr":"1","cpc":"1","cpm":"1","impressions":1,"reach":1,"clicks":1,"purchases":null,"purchaseValue":null,"roas":null}`, i, 1+i%28, spend)}
}

// TestSync: `svc insights sync` over the double: a first sync copies every
// row; a second run with no import reads nothing; after an import it reads
// exactly the rows changed and removed and the copy equals the service's
// rows; -o jsonl streams the changes; a token older than the retention
// makes it sync again from scratch by itself; the key is not in the file.
func TestSync(t *testing.T) {
	key := svctest.MakeKey(strings.Repeat("s", 37))
	api := &svctest.API{Key: key, DataAsOf: "2026-11-20T06:00:00Z", GeneratedAt: "2026-11-20T07:00:00Z"}
	for i := range 1200 {
		api.Insights = append(api.Insights, syncRow(i, "1.00"))
	}
	srv := httptest.NewServer(api)
	defer srv.Close()
	file := filepath.Join(t.TempDir(), "copy.db")
	run := func(args string) (string, string) {
		t.Helper()
		ios, _, stdout, stderr := testapi.Streams(testapi.TTY{})
		f := testapi.Factory(ios, map[string]string{"SVC_API_KEY": key, "SVC_SITE_URL": srv.URL})
		if err := testapi.Execute(t, NewCmdSync(f, nil), "--to "+file+" "+args); err != nil {
			t.Fatalf("sync %s: %v (stderr %s)", args, err, stderr)
		}
		return stdout.String(), stderr.String()
	}
	check := func() {
		t.Helper()
		cp, err := localcopy.Open(t.Context(), file)
		if err != nil {
			t.Fatal(err)
		}
		defer cp.Close()
		rows, _ := cp.Rows(t.Context())
		if len(rows) != len(api.Insights) {
			t.Fatalf("copy has %d rows, the service %d", len(rows), len(api.Insights))
		}
		for _, r := range api.Insights {
			if id := r.JSON[7:12]; rows[id] != r.JSON {
				t.Fatalf("row %s: copy %s, service %s", id, rows[id], r.JSON)
			}
		}
	}
	if out, _ := run(""); !strings.Contains(out, "1200 added, 0 changed, 0 removed (first sync: 1200 read)") {
		t.Fatalf("first run: %s", out)
	}
	check()
	if out, _ := run(""); !strings.Contains(out, "0 added, 0 changed, 0 removed (changes since the last sync: 0 read)") {
		t.Fatalf("second run with no import: %s", out)
	}
	// An import: 36 rows (3 %) restated, one of them twice; one removed.
	for i := 0; i < 1200; i += 33 {
		api.Insights[i] = syncRow(i, "2.50")
		api.Changes = append(api.Changes, svctest.ChangeEntry{ID: fmt.Sprintf("i%04d", i), Row: api.Insights[i]})
	}
	api.Changes = append(api.Changes, svctest.ChangeEntry{ID: "i0033", Row: api.Insights[33]},
		svctest.ChangeEntry{ID: "i0001", Delete: true, Row: svctest.Row{AccountID: "acc_1"}, Date: "2026-11-02"})
	api.Insights = append(api.Insights[:1], api.Insights[2:]...)
	out, errOut := run("-o jsonl")
	if lines := strings.Count(out, "\n"); lines != 38 || !strings.Contains(errOut, "0 added, 37 changed, 1 removed (changes since the last sync: 38 read)") {
		t.Fatalf("after an import: %d lines on stdout, stderr %s", lines, errOut)
	}
	if !strings.Contains(out, `{"change":"delete","id":"i0001","accountId":"acc_1","date":"2026-11-02"}`) {
		t.Fatalf("jsonl: %s", out)
	}
	check()
	// Pruned past the copy's token: resynced from scratch.
	api.ChangesPrunedBelow = len(api.Changes) + 1
	api.Changes = append(api.Changes, make([]svctest.ChangeEntry, 1)...)
	api.Changes[len(api.Changes)-1] = svctest.ChangeEntry{ID: "i0002", Row: api.Insights[1]}
	out, errOut = run("")
	if !strings.Contains(errOut, "syncing "+file+" again from scratch") || !strings.Contains(out, "(first sync: 1199 read)") {
		t.Fatalf("resync: %s / %s", out, errOut)
	}
	check()
	_ = svc.ChangeUpsert
}
