package insights

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	svc "github.com/adsnap/svc/sdk-go"

	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
	"github.com/adsnap/svc/svc-cli/internal/output"
	"github.com/adsnap/svc/svc-cli/internal/testapi"
)

func TestNewCmdInsights(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     string
		tty      bool
		want     cmdutil.ListFlags
		from, to svc.Date
		summary  bool
		groupBy  svc.GroupBy
		level    svc.Level
		format   output.Format
		wantErr  string
	}{
		{name: "defaults", format: output.JSON},
		{name: "dates", args: "--from 2025-01-01 --to 2025-01-31", tty: true,
			from: svc.Date{Year: 2025, Month: 1, Day: 1}, to: svc.Date{Year: 2025, Month: 1, Day: 31}, format: output.Table},
		{name: "summary", args: "--summary -o csv", want: cmdutil.ListFlags{Output: "csv"}, summary: true, format: output.CSV},
		{name: "every list flag", args: "--limit 100 --offset 10000 --accountId x_1 --all -o json --key-stdin --wait",
			want:   cmdutil.ListFlags{Limit: 100, Offset: 10000, AccountID: "x_1", All: true, Output: "json", KeyStdin: true, Wait: true},
			format: output.JSON},
		{name: "summary by week, campaign level", args: "--summary --group-by week --level campaign", summary: true,
			groupBy: svc.GroupByWeek, level: svc.LevelCampaign, format: output.JSON},
		{name: "group-by without summary", args: "--group-by day", wantErr: "--group-by and --level need --summary"},
		{name: "sort without summary", args: "--sort -spend --top 5", wantErr: "--sort needs --summary"},
		{name: "compare-to not a date", args: "--summary --compare-from 2026-10-01 --compare-to 2026-10", wantErr: `--compare-to: "2026-10" is not a date in the form YYYY-MM-DD`},
		{name: "level without summary", args: "--level account", wantErr: "--group-by and --level need --summary"},
		{name: "unknown group-by", args: "--summary --group-by year", wantErr: `--group-by: "year" is not one of total, account, campaign, day, week, month, account,day, campaign,day`},
		{name: "unknown level", args: "--summary --level both", wantErr: `--level: "both" is neither account nor campaign`},
		{name: "campaigns at account level", args: "--summary --group-by campaign --level account",
			wantErr: "--group-by campaign needs --level campaign: account-level rows have no campaign"},
		{name: "bad from", args: "--from 01/02/2025", wantErr: `--from: "01/02/2025" is not a date in the form YYYY-MM-DD`},
		{name: "impossible to", args: "--to 2025-02-30", wantErr: `--to: "2025-02-30" is not a date in the form YYYY-MM-DD`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ios, _, _, _ := testapi.Streams(testapi.TTY{Stdout: tt.tty})
			var got *InsightsOptions
			cmd := NewCmdInsights(testapi.Factory(ios, nil), func(o *InsightsOptions) error {
				got = o
				return nil
			})
			err := testapi.Execute(t, cmd, tt.args)
			if tt.wantErr != "" {
				var fe *cmdutil.FlagError
				if !errors.As(err, &fe) || err.Error() != tt.wantErr {
					t.Fatalf("error = %v (%T), want usage error %q", err, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.List); diff != "" {
				t.Errorf("flags (-want +got):\n%s", diff)
			}
			if got.From != tt.from || got.To != tt.to || got.Summary != tt.summary || got.Format != tt.format ||
				got.GroupBy != tt.groupBy || got.Level != tt.level {
				t.Errorf("from, to, summary, format, group-by, level = %v, %v, %v, %q, %q, %q; want %v, %v, %v, %q, %q, %q",
					got.From, got.To, got.Summary, got.Format, got.GroupBy, got.Level, tt.from, tt.to, tt.summary, tt.format, tt.groupBy, tt.level)
			}
		})
	}
}

func TestInsightsRun(t *testing.T) {
	t.Parallel()
	api := testapi.New()
	t.Cleanup(api.Close)
	const prov = "Stored snapshot (not live) · data as of 2026-11-20T06:00:00Z\n"
	const totalsNote = "Totals per currency and level: amounts in different currencies, and account-level and campaign-level rows (which overlap), are never added together.\n"
	const oldNote = "The service does not offer GET /insights/summary (an older version): reading every row to total them here, per currency and level; purchases are n/a when any row of a group lacks purchase evidence.\n"
	tests := []struct {
		name       string
		route      string
		args       string
		tty        testapi.TTY
		wantOut    string
		wantErrOut string
	}{
		{
			name: "table on a terminal: ACCOUNT is the account id, not the platform's",
			tty:  testapi.TTY{Stdout: true},
			wantOut: prov +
				"DATE        LEVEL     ACCOUNT  CAMPAIGN      SPEND  IMPRESSIONS  CLICKS  PURCHASES      VALUE  ROAS\n" +
				"2026-11-19  account   acc_1    —         12.50 EUR         2049      31          2  80.00 EUR   6.4\n" +
				"2026-11-19  campaign  acc_1    cmp_1     10.00 EUR         1500      20        n/a        n/a   n/a\n" +
				"2026-11-18  account   acc_2    —         30.25 USD         4000      50          1  45.50 USD   1.5\n",
		},
		{
			name: "json off a terminal: each row as the API returned it (date-time kept)",
			args: "--limit 1",
			wantOut: `[
  {
    "id": "ins_1",
    "platformAdAccountId": "act_991",
    "attributionWindow": "7d_click_1d_view",
    "campaignId": null,
    "date": "2026-11-19T00:00:00Z",
    "syncedAt": "2026-11-20T06:00:00Z",
    "account": {
      "currency": "EUR",
      "timezone": "Europe/Berlin"
    },
    "purchaseMeasurement": "reported_purchase_value",
    "spend": "12.50",
    "ctr": "1.51",
    "cpc": "0.40",
    "cpm": "6.10",
    "impressions": 2049,
    "reach": 1800,
    "clicks": 31,
    "purchases": 2,
    "purchaseValue": 80,
    "roas": 6.4
  }
]
`,
			wantErrOut: prov + "More rows: --offset 1 for the next page, or --all for every page.\n",
		},
		{
			name: "jsonl keeps null purchase data null",
			args: "-o jsonl --offset 1 --limit 1",
			tty:  testapi.TTY{Stdout: true},
			wantOut: `{"id":"ins_2","platformAdAccountId":"act_991","attributionWindow":"7d_click_1d_view","campaignId":"cmp_1","date":"2026-11-19T00:00:00Z","syncedAt":"2026-11-20T06:00:00Z","account":{"currency":"EUR","timezone":"Europe/Berlin"},"purchaseMeasurement":"unavailable","spend":"10.00","ctr":"1.33","cpc":"0.50","cpm":"6.67","impressions":1500,"reach":1400,"clicks":20,"purchases":null,"purchaseValue":null,"roas":null}
`,
			wantErrOut: prov + "More rows: --offset 2 for the next page, or --all for every page.\n",
		},
		{
			name: "--all jsonl streams each row as the API returned it (date-time kept)",
			args: "--all -o jsonl --accountId acc_1",
			wantOut: `{"id":"ins_1","platformAdAccountId":"act_991","attributionWindow":"7d_click_1d_view","campaignId":null,"date":"2026-11-19T00:00:00Z","syncedAt":"2026-11-20T06:00:00Z","account":{"currency":"EUR","timezone":"Europe/Berlin"},"purchaseMeasurement":"reported_purchase_value","spend":"12.50","ctr":"1.51","cpc":"0.40","cpm":"6.10","impressions":2049,"reach":1800,"clicks":31,"purchases":2,"purchaseValue":80,"roas":6.4}
{"id":"ins_2","platformAdAccountId":"act_991","attributionWindow":"7d_click_1d_view","campaignId":"cmp_1","date":"2026-11-19T00:00:00Z","syncedAt":"2026-11-20T06:00:00Z","account":{"currency":"EUR","timezone":"Europe/Berlin"},"purchaseMeasurement":"unavailable","spend":"10.00","ctr":"1.33","cpc":"0.50","cpm":"6.67","impressions":1500,"reach":1400,"clicks":20,"purchases":null,"purchaseValue":null,"roas":null}
`,
			wantErrOut: prov,
		},
		{
			name: "--all table: ACCOUNT is the account id",
			args: "--all -o table",
			wantOut: prov +
				"DATE        LEVEL     ACCOUNT  CAMPAIGN      SPEND  IMPRESSIONS  CLICKS  PURCHASES      VALUE  ROAS\n" +
				"2026-11-19  account   acc_1    —         12.50 EUR         2049      31          2  80.00 EUR   6.4\n" +
				"2026-11-19  campaign  acc_1    cmp_1     10.00 EUR         1500      20        n/a        n/a   n/a\n" +
				"2026-11-18  account   acc_2    —         30.25 USD         4000      50          1  45.50 USD   1.5\n",
		},
		{
			name: "csv",
			args: "-o csv --accountId acc_1",
			wantOut: insightsCSV(t,
				"ins_1,2026-11-19,account,act_991,,EUR,Europe/Berlin,12.50,2049,1800,31,1.51,0.40,6.10,reported_purchase_value,2,80,6.4,7d_click_1d_view,2026-11-20T06:00:00Z",
				"ins_2,2026-11-19,campaign,act_991,cmp_1,EUR,Europe/Berlin,10.00,1500,1400,20,1.33,0.50,6.67,unavailable,,,,7d_click_1d_view,2026-11-20T06:00:00Z"),
			wantErrOut: prov,
		},
		{
			name: "summary table: per currency and level, from the service, n/a never 0",
			args: "--summary --limit 1",
			tty:  testapi.TTY{Stdout: true},
			wantOut: prov +
				"CURRENCY  LEVEL     ROWS  DAYS      SPEND  IMPRESSIONS  CLICKS      CTR         CPC         CPM  PURCHASES      VALUE    ROAS\n" +
				"EUR       account      1     1  12.50 EUR         2049      31  1.5129%  0.4032 EUR  6.1005 EUR          2  80.00 EUR  6.4000\n" +
				"EUR       campaign     1     1  10.00 EUR         1500      20  1.3333%  0.5000 EUR  6.6667 EUR        n/a        n/a     n/a\n" +
				"USD       account      1     1  30.25 USD         4000      50  1.2500%  0.6050 USD  7.5625 USD          1  45.50 USD  1.5041\n",
			wantErrOut: totalsNote,
		},
		{
			name: "summary json: the groups as the service sends them",
			args: "--summary --level campaign",
			wantOut: `[
  {
    "level": "campaign",
    "currency": "EUR",
    "accountId": null,
    "campaignId": null,
    "periodStart": null,
    "periodEnd": null,
    "rows": 1,
    "days": 1,
    "spend": "10.00",
    "impressions": 1500,
    "clicks": 20,
    "ctr": "1.3333",
    "cpc": "0.5000",
    "cpm": "6.6667",
    "purchaseRows": 0,
    "purchases": null,
    "purchaseValueRows": 0,
    "purchaseValue": null,
    "roas": null
  }
]
`,
			wantErrOut: prov + totalsNote,
		},
		{
			name: "summary jsonl per account",
			args: "--summary --level account --group-by account -o jsonl",
			wantOut: `{"level":"account","currency":"EUR","accountId":"acc_1","campaignId":null,"periodStart":null,"periodEnd":null,"rows":1,"days":1,"spend":"12.50","impressions":2049,"clicks":31,"ctr":"1.5129","cpc":"0.4032","cpm":"6.1005","purchaseRows":1,"purchases":"2","purchaseValueRows":1,"purchaseValue":"80","roas":"6.4000","accountName":"Acme EU","status":"ACTIVE"}
{"level":"account","currency":"USD","accountId":"acc_2","campaignId":null,"periodStart":null,"periodEnd":null,"rows":1,"days":1,"spend":"30.25","impressions":4000,"clicks":50,"ctr":"1.2500","cpc":"0.6050","cpm":"7.5625","purchaseRows":1,"purchases":"1","purchaseValueRows":1,"purchaseValue":"45.5","roas":"1.5041","accountName":"Acme US, \"East\"","status":"INACTIVE"}
`,
			wantErrOut: prov + totalsNote,
		},
		{
			name:  "summary over many pages",
			route: "/pages",
			args:  "--summary -o csv",
			wantOut: "level,currency,accountId,campaignId,periodStart,periodEnd,rows,days,spend,impressions,clicks,ctr,cpc,cpm,purchaseRows,purchases,purchaseValueRows,purchaseValue,roas,accountName,campaignName,status,previous.rows,previous.days,previous.spend,previous.impressions,previous.clicks,previous.ctr,previous.cpc,previous.cpm,previous.purchaseRows,previous.purchases,previous.purchaseValueRows,previous.purchaseValue,previous.roas,change.spend,change.spendRelative,change.impressions,change.impressionsRelative,change.clicks,change.clicksRelative,change.purchases,change.purchasesRelative,change.purchaseValue,change.purchaseValueRelative,change.ctr,change.ctrRelative,change.cpc,change.cpcRelative,change.cpm,change.cpmRelative,change.roas,change.roasRelative\n" +
				"account,EUR,,,,,120,1,150.00,1200,120,10.0000,1.2500,125.0000,120,120,0,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,\n",
			wantErrOut: prov + totalsNote,
		},
		{
			name:  "summary from a service without the endpoint: every row totalled here, as before",
			route: "/old",
			args:  "--summary --limit 1",
			tty:   testapi.TTY{Stdout: true},
			wantOut: prov +
				"CURRENCY  LEVEL     ROWS      SPEND  IMPRESSIONS  CLICKS  PURCHASES      VALUE\n" +
				"EUR       account      1  12.50 EUR         2049      31          2  80.00 EUR\n" +
				"EUR       campaign     1  10.00 EUR         1500      20        n/a        n/a\n" +
				"USD       account      1  30.25 USD         4000      50          1  45.50 USD\n",
			wantErrOut: oldNote + totalsNote,
		},
		{
			name:  "summary json from a service without the endpoint, one level",
			route: "/old",
			args:  "--summary --level campaign",
			wantOut: `[
  {
    "currency": "EUR",
    "level": "campaign",
    "rows": 1,
    "spend": "10.00",
    "impressions": 1500,
    "clicks": 20,
    "purchases": null,
    "purchaseValue": null
  }
]
`,
			wantErrOut: oldNote + prov + totalsNote,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ios, _, stdout, stderr := testapi.Streams(tt.tty)
			cmd := NewCmdInsights(testapi.Factory(ios, api.Env(tt.route)), nil)
			if err := testapi.Execute(t, cmd, tt.args); err != nil {
				t.Fatalf("error: %v\nstderr: %s", err, stderr)
			}
			if diff := cmp.Diff(tt.wantOut, stdout.String()); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantErrOut, stderr.String()); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

// insightsNamedCSV is the CSV's columns that the command names (Spec.CSV
// in insights.go), in its order: they are pinned here, so that a column
// the command drops or moves fails the test.
var insightsNamedCSV = []string{"id", "date", "level", "platformAdAccountId", "campaignId", "currency", "timezone",
	"spend", "impressions", "reach", "clicks", "ctr", "cpc", "cpm",
	"purchaseMeasurement", "purchases", "purchaseValue", "roas", "attributionWindow", "syncedAt"}

// insightsCSV is the CSV the command prints for rows whose named columns
// are namedRows (insightsNamedCSV's cells, comma-separated): the header is
// the named columns followed by every other JSON field of svc.Insight in
// the SDK's order (the derivation the command uses, output.CSVColumns),
// and each row's derived cells are empty, as the test API's rows carry no
// field beyond the named ones (null is an empty cell). A field the SDK
// gains needs no change here.
func insightsCSV(t *testing.T, namedRows ...string) string {
	t.Helper()
	header := slices.Clone(insightsNamedCSV)
	for _, c := range output.CSVColumns[svc.Insight](nil) {
		if !slices.Contains(insightsNamedCSV, c.Header) {
			header = append(header, c.Header)
		}
	}
	tail := strings.Repeat(",", len(header)-len(insightsNamedCSV))
	var b strings.Builder
	b.WriteString(strings.Join(header, ",") + "\n")
	for _, r := range namedRows {
		if n := strings.Count(r, ",") + 1; n != len(insightsNamedCSV) {
			t.Fatalf("row %q has %d cells, want %d (insightsNamedCSV)", r, n, len(insightsNamedCSV))
		}
		b.WriteString(r + tail + "\n")
	}
	return b.String()
}

func TestInsightsRunDates(t *testing.T) {
	t.Parallel()
	api := testapi.New()
	t.Cleanup(api.Close)
	today := svc.DateOf(time.Now().UTC())

	ios, _, _, _ := testapi.Streams(testapi.TTY{})
	from, to := today.AddDays(-10), today.AddDays(-3)
	args := "--from " + from.String() + " --to " + to.String() + " --accountId acc_1 --limit 7 --offset 2"
	if err := testapi.Execute(t, NewCmdInsights(testapi.Factory(ios, api.Env("")), nil), args); err != nil {
		t.Fatal(err)
	}
	want := "/api/v1/developer/insights?accountId=acc_1&from=" + from.String() + "&limit=7&offset=2&to=" + to.String()
	if got := api.Requests(); !slices.Equal(got, []string{want}) {
		t.Errorf("requests = %q, want %q", got, want)
	}

	// A range the SDK refuses is a usage error, and nothing is sent.
	for _, args := range []string{
		"--from " + today.AddDays(1).String(),
		"--from " + today.AddDays(-100).String() + " --to " + today.String(),
		"--from " + today.String() + " --to " + today.AddDays(-1).String(),
		"--limit 101", "--offset -1", "--accountId bad!id",
	} {
		ios, _, _, _ := testapi.Streams(testapi.TTY{})
		err := testapi.Execute(t, NewCmdInsights(testapi.Factory(ios, api.Env("/never")), nil), args)
		if code, msg := cmdutil.ExitFor(err); code != cmdutil.ExitUsage || !strings.HasPrefix(msg, "invalid request, no request was made: ") {
			t.Errorf("%s: exit %d %q, want a usage error", args, code, msg)
		}
	}
	for _, r := range api.Requests() {
		if strings.HasPrefix(r, "/never") {
			t.Errorf("request sent for invalid options: %s", r)
		}
	}
}

func TestSummaryRequests(t *testing.T) {
	t.Parallel()
	api := testapi.New()
	t.Cleanup(api.Close)
	today := svc.DateOf(time.Now().UTC())
	from, to := today.AddDays(-6).String(), today.String()
	for _, tc := range []struct {
		args string
		want []string
	}{
		// Both levels, one request each, every page of groups.
		{"--summary --group-by week --accountId acc_1 --from " + from + " --to " + to, []string{
			"/api/v1/developer/insights/summary?accountId=acc_1&from=" + from + "&groupBy=week&level=account&limit=100&to=" + to,
			"/api/v1/developer/insights/summary?accountId=acc_1&from=" + from + "&groupBy=week&level=campaign&limit=100&to=" + to,
		}},
		// Campaign groups exist at campaign level only.
		{"--summary --group-by campaign --limit 7", []string{"/api/v1/developer/insights/summary?groupBy=campaign&level=campaign&limit=7"}},
		{"--summary --level account", []string{"/api/v1/developer/insights/summary?level=account&limit=100"}},
	} {
		before := len(api.Requests())
		ios, _, _, stderr := testapi.Streams(testapi.TTY{})
		if err := testapi.Execute(t, NewCmdInsights(testapi.Factory(ios, api.Env("")), nil), tc.args); err != nil {
			t.Fatalf("%s: %v\n%s", tc.args, err, stderr)
		}
		if got := api.Requests()[before:]; !slices.Equal(got, tc.want) {
			t.Errorf("%s: requests\n%q\nwant\n%q", tc.args, got, tc.want)
		}
	}
	// A group-by a service without the endpoint cannot answer: an error
	// that says so, nothing printed.
	ios, _, stdout, _ := testapi.Streams(testapi.TTY{})
	err := testapi.Execute(t, NewCmdInsights(testapi.Factory(ios, api.Env("/old")), nil), "--summary --group-by day")
	if code, msg := cmdutil.ExitFor(err); code != cmdutil.ExitError || !strings.Contains(msg, "--group-by day needs the service's GET /insights/summary") || stdout.Len() != 0 {
		t.Errorf("--group-by day against an older service: exit %d %q, stdout %q", code, msg, stdout)
	}
}

// TestSummaryThroughTheEndpointMatchesClientSide runs --summary on 14 days
// of the demo organization (the rows of `svc-api demo`) against the service
// with GET /insights/summary and against one without, where svc totals
// every row itself as it did before (svc.InsightTotals, the client-side
// code of 95c3747): rows, spend, impressions and clicks per currency and
// level are the same. Both tables are pinned. Purchases differ by design:
// the endpoint sums the rows with evidence and counts them, the client-side
// code gives n/a when any row lacks evidence.
func TestSummaryThroughTheEndpointMatchesClientSide(t *testing.T) {
	t.Parallel()
	api := testapi.New()
	t.Cleanup(api.Close)
	run := func(route, args string, tty bool) string {
		ios, _, stdout, stderr := testapi.Streams(testapi.TTY{Stdout: tty})
		if err := testapi.Execute(t, NewCmdInsights(testapi.Factory(ios, api.Env(route)), nil), args); err != nil {
			t.Fatalf("%s %s: %v\n%s", route, args, err, stderr)
		}
		return stdout.String()
	}
	type figures struct {
		Currency, Level, Spend string
		Rows                   int
		Impressions, Clicks    int64
	}
	decode := func(out string) []figures {
		var f []figures
		if err := json.Unmarshal([]byte(out), &f); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return f
	}
	endpoint, client := decode(run("/demo", "--summary -o json", false)), decode(run("/demo/old", "--summary -o json", false))
	if len(endpoint) != 6 {
		t.Fatalf("%d groups through the endpoint, want 3 currencies × 2 levels: %+v", len(endpoint), endpoint)
	}
	if diff := cmp.Diff(client, endpoint); diff != "" {
		t.Errorf("the endpoint's figures differ from the client-side totals (-client +endpoint):\n%s", diff)
	}

	const prov = "Stored snapshot (not live) · data as of 2026-11-23T18:00:00Z\n"
	wantEndpoint := prov +
		"CURRENCY  LEVEL     ROWS  DAYS        SPEND  IMPRESSIONS  CLICKS      CTR          CPC           CPM                 PURCHASES                             VALUE    ROAS\n" +
		"EUR       account     14    14  1104.00 EUR       168142    2823  1.6789%   0.3911 EUR    6.5659 EUR  127 (from 11 of 14 rows)  7208.51 EUR (from 11 of 14 rows)  8.1773\n" +
		"EUR       campaign    28    14  1104.00 EUR       168142    2823  1.6789%   0.3911 EUR    6.5659 EUR  127 (from 22 of 28 rows)  7208.51 EUR (from 22 of 28 rows)  8.1773\n" +
		"JPY       account     14    14   115677 JPY       163838    3524  2.1509%  32.8255 JPY  706.0450 JPY                       n/a                               n/a     n/a\n" +
		"JPY       campaign    28    14   115677 JPY       163838    3524  2.1509%  32.8255 JPY  706.0450 JPY                       n/a                               n/a     n/a\n" +
		"USD       account     14    14  1113.61 USD       161134    3049  1.8922%   0.3652 USD    6.9111 USD                       154                       8792.54 USD  7.8955\n" +
		"USD       campaign    28    14  1113.61 USD       161134    3049  1.8922%   0.3652 USD    6.9111 USD                       154                       8792.54 USD  7.8955\n"
	if diff := cmp.Diff(wantEndpoint, run("/demo", "--summary", true)); diff != "" {
		t.Errorf("the endpoint's table (-want +got):\n%s", diff)
	}
	wantClient := prov +
		"CURRENCY  LEVEL     ROWS        SPEND  IMPRESSIONS  CLICKS  PURCHASES        VALUE\n" +
		"EUR       account     14  1104.00 EUR       168142    2823        n/a          n/a\n" +
		"EUR       campaign    28  1104.00 EUR       168142    2823        n/a          n/a\n" +
		"JPY       account     14   115677 JPY       163838    3524        n/a          n/a\n" +
		"JPY       campaign    28   115677 JPY       163838    3524        n/a          n/a\n" +
		"USD       account     14  1113.61 USD       161134    3049        154  8792.54 USD\n" +
		"USD       campaign    28  1113.61 USD       161134    3049        154  8792.54 USD\n"
	if diff := cmp.Diff(wantClient, run("/demo/old", "--summary", true)); diff != "" {
		t.Errorf("the client-side table (-want +got):\n%s", diff)
	}
}
