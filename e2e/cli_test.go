package e2e

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/adsnap/svc/e2e/internal/harness"
)

// svc runs the built svc binary against base with key (in SVC_API_KEY unless
// stdin is used), records its output, and returns stdout, stderr and the exit code.
func (e *env) svc(t *testing.T, svcBin, base, key, stdin string, args ...string) (string, string, int) {
	t.Helper()
	env := []string{"SVC_SITE_URL=" + base, "NO_COLOR=1"}
	if key != "" {
		env = append(env, "SVC_API_KEY="+key)
	} else {
		env = append(env, "SVC_API_KEY=")
	}
	out, errOut, code, err := harness.Run(t.Context(), svcBin, env, stdin, args...)
	if err != nil {
		t.Fatalf("svc %v: %v", args, err)
	}
	e.rec.add("svc "+strings.Join(args, " "), out+"\n"+errOut)
	return out, errOut, code
}

// ids returns the "id" of each decoded row.
func ids(rows []map[string]any) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r["id"].(string))
	}
	return out
}

func wantIDs(t *testing.T, what string, got []map[string]any, want []any) {
	t.Helper()
	var w []string
	for _, r := range want {
		w = append(w, r.(map[string]any)["id"].(string))
	}
	if g := ids(got); strings.Join(g, ",") != strings.Join(w, ",") {
		t.Errorf("%s: ids %v, want %v", what, g, w)
	}
}

func testCLI(t *testing.T, e *env) {
	f := e.fix
	base := e.replicas[0].URL
	key := e.keys["alpha_aci"]
	asOf := f.Today.Add(-90 * time.Minute).Format(time.RFC3339)

	out, errOut, code := e.svc(t, e.bin.CLI, base, key, "", "accounts", "-o", "json")
	var accounts []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &accounts) != nil {
		t.Fatalf("svc accounts -o json: exit %d\n%s\n%s", code, out, errOut)
	}
	wantIDs(t, "accounts", accounts, f.ExpectedAccounts(harness.OrgAlpha))
	if !strings.Contains(errOut, "Stored snapshot") || !strings.Contains(errOut, asOf) {
		t.Errorf("provenance on stderr: %q", errOut)
	}

	// --all -o json: one array over every page.
	out, errOut, code = e.svc(t, e.bin.CLI, e.replicas[1].URL, key, "", "insights", "--all", "--limit", "13", "-o", "json")
	var insights []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &insights) != nil {
		t.Fatalf("svc insights --all -o json: exit %d\n%.300s\n%s", code, out, errOut)
	}
	want := f.ExpectedInsights(harness.OrgAlpha, "", f.Today.AddDate(0, 0, -29), f.Today)
	wantIDs(t, "insights --all", insights, want)
	// Each row is what the API returned, field for field (the date keeps
	// its date-time).
	for i, row := range insights {
		if diff := cmp.Diff(want[i], any(row)); diff != "" {
			t.Errorf("svc insights -o json row %v differs from the API's (-want +got):\n%s", row["id"], diff)
			break
		}
	}

	// The table marks unavailable purchase data n/a and shows money with its currency.
	out, _, code = e.svc(t, e.bin.CLI, base, key, "", "insights", "--accountId", "acc_alpha_eur", "--from", day(f.Today, -4), "--to", day(f.Today, 0), "-o", "table")
	if code != 0 || !strings.Contains(out, "n/a") || !strings.Contains(out, " EUR") || !strings.HasPrefix(out, "Stored snapshot") {
		t.Errorf("insights table (exit %d):\n%s", code, out)
	}

	// The summary never mixes currencies or levels, and says over how many
	// rows the purchase figures are (the rows with purchase evidence).
	out, _, code = e.svc(t, e.bin.CLI, base, key, "", "insights", "--summary", "-o", "table")
	if code != 0 || !strings.Contains(out, "EUR") || !strings.Contains(out, "USD") || !regexp.MustCompile(`\(from \d+ of \d+ rows\)`).MatchString(out) {
		t.Errorf("summary (exit %d):\n%s", code, out)
	}

	// --key-stdin, and the exit codes.
	if out, _, code := e.svc(t, e.bin.CLI, base, "", key+"\n", "campaigns", "--key-stdin", "--accountId", "acc_alpha_usd", "-o", "jsonl"); code != 0 ||
		strings.Count(out, "\n") != len(f.ExpectedCampaigns(harness.OrgAlpha, "acc_alpha_usd")) {
		t.Errorf("--key-stdin: exit %d\n%s", code, out)
	}
	for _, tc := range []struct {
		name, key string
		args      []string
		code      int
	}{
		{"missing key", "", []string{"accounts"}, 3},
		{"malformed key", "svc_live_oops", []string{"accounts"}, 3},
		{"missing scope", e.keys["alpha_c"], []string{"accounts"}, 3},
		{"foreign account", key, []string{"campaigns", "--accountId", "acc_gamma_gbp"}, 4},
		{"bad date", key, []string{"insights", "--from", "2026-13-40"}, 2},
	} {
		_, errOut, code := e.svc(t, e.bin.CLI, base, tc.key, "", tc.args...)
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d\n%s", tc.name, code, tc.code, errOut)
		}
	}
}
