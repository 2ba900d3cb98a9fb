package insights

import (
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
			if got.From != tt.from || got.To != tt.to || got.Summary != tt.summary || got.Format != tt.format {
				t.Errorf("from, to, summary, format = %v, %v, %v, %q; want %v, %v, %v, %q",
					got.From, got.To, got.Summary, got.Format, tt.from, tt.to, tt.summary, tt.format)
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
			wantOut: "id,date,level,platformAdAccountId,campaignId,currency,timezone,spend,impressions,reach,clicks,ctr,cpc,cpm,purchaseMeasurement,purchases,purchaseValue,roas,attributionWindow,syncedAt\n" +
				"ins_1,2026-11-19,account,act_991,,EUR,Europe/Berlin,12.50,2049,1800,31,1.51,0.40,6.10,reported_purchase_value,2,80,6.4,7d_click_1d_view,2026-11-20T06:00:00Z\n" +
				"ins_2,2026-11-19,campaign,act_991,cmp_1,EUR,Europe/Berlin,10.00,1500,1400,20,1.33,0.50,6.67,unavailable,,,,7d_click_1d_view,2026-11-20T06:00:00Z\n",
			wantErrOut: prov,
		},
		{
			name: "summary table: per currency and level, n/a never 0",
			args: "--summary --limit 1",
			tty:  testapi.TTY{Stdout: true},
			wantOut: prov +
				"CURRENCY  LEVEL     ROWS      SPEND  IMPRESSIONS  CLICKS  PURCHASES      VALUE\n" +
				"EUR       account      1  12.50 EUR         2049      31          2  80.00 EUR\n" +
				"EUR       campaign     1  10.00 EUR         1500      20        n/a        n/a\n" +
				"USD       account      1  30.25 USD         4000      50          1  45.50 USD\n",
			wantErrOut: totalsNote,
		},
		{
			name: "summary json: purchases and purchase value are numbers, as in the API",
			args: "--summary",
			wantOut: `[
  {
    "currency": "EUR",
    "level": "account",
    "rows": 1,
    "spend": "12.50",
    "impressions": 2049,
    "clicks": 31,
    "purchases": 2,
    "purchaseValue": 80
  },
  {
    "currency": "EUR",
    "level": "campaign",
    "rows": 1,
    "spend": "10.00",
    "impressions": 1500,
    "clicks": 20,
    "purchases": null,
    "purchaseValue": null
  },
  {
    "currency": "USD",
    "level": "account",
    "rows": 1,
    "spend": "30.25",
    "impressions": 4000,
    "clicks": 50,
    "purchases": 1,
    "purchaseValue": 45.5
  }
]
`,
			wantErrOut: prov + totalsNote,
		},
		{
			name:  "summary over many pages",
			route: "/pages",
			args:  "--summary -o csv",
			wantOut: "currency,level,rows,spend,impressions,clicks,purchases,purchaseValue\n" +
				"EUR,account,120,150.00,1200,120,120,\n",
			wantErrOut: prov + totalsNote,
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
