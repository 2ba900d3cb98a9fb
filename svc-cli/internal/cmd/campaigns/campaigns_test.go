package campaigns

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
	"github.com/adsnap/svc/svc-cli/internal/output"
	"github.com/adsnap/svc/svc-cli/internal/testapi"
)

func TestNewCmdCampaigns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    string
		tty     bool
		want    cmdutil.ListFlags
		format  output.Format
		wantErr string
	}{
		{name: "defaults, not a terminal", format: output.JSON},
		{name: "defaults, terminal", tty: true, format: output.Table},
		{name: "accountId", args: "--accountId acc_2", tty: true, want: cmdutil.ListFlags{AccountID: "acc_2"}, format: output.Table},
		{name: "every flag", args: "--limit 5 --offset 5 --accountId a --all -o jsonl --key-stdin --wait",
			want:   cmdutil.ListFlags{Limit: 5, Offset: 5, AccountID: "a", All: true, Output: "jsonl", KeyStdin: true, Wait: true},
			format: output.JSONL},
		{name: "unknown format", args: "-o xml", wantErr: `unknown output format "xml": use table, json, jsonl or csv`},
		{name: "api-key flag does not exist", args: "--api-key k", wantErr: "unknown flag: --api-key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ios, _, _, _ := testapi.Streams(testapi.TTY{Stdout: tt.tty})
			var got *CampaignsOptions
			cmd := NewCmdCampaigns(testapi.Factory(ios, nil), func(o *CampaignsOptions) error {
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
			if got.Format != tt.format {
				t.Errorf("format = %q, want %q", got.Format, tt.format)
			}
		})
	}
}

func TestCampaignsRun(t *testing.T) {
	t.Parallel()
	api := testapi.New()
	t.Cleanup(api.Close)
	const prov = "Stored snapshot (not live) · data as of 2026-11-20T06:00:00Z\n"
	tests := []struct {
		name       string
		args       string
		tty        testapi.TTY
		wantOut    string
		wantErrOut string
	}{
		{
			name: "table on a terminal: ACCOUNT is the account id, not the platform's",
			tty:  testapi.TTY{Stdout: true, Stderr: true},
			wantOut: prov +
				"ID     NAME             STATUS  DAILY BUDGET  LIFETIME BUDGET  OBJECTIVE          ACCOUNT\n" +
				"cmp_1  Winter Sale      ACTIVE     25.00 EUR                —  OUTCOME_SALES      acc_1\n" +
				"cmp_2  Brand Awareness  PAUSED             —      1000.00 USD  OUTCOME_AWARENESS  acc_2\n",
		},
		{
			name: "--all table: printed at the end, ACCOUNT still the account id",
			args: "--all -o table --quiet",
			wantOut: prov +
				"ID     NAME             STATUS  DAILY BUDGET  LIFETIME BUDGET  OBJECTIVE          ACCOUNT\n" +
				"cmp_1  Winter Sale      ACTIVE     25.00 EUR                —  OUTCOME_SALES      acc_1\n" +
				"cmp_2  Brand Awareness  PAUSED             —      1000.00 USD  OUTCOME_AWARENESS  acc_2\n",
		},
		{
			name: "table filtered by account",
			args: "--accountId acc_2 -o table",
			wantOut: prov +
				"ID     NAME             STATUS  DAILY BUDGET  LIFETIME BUDGET  OBJECTIVE          ACCOUNT\n" +
				"cmp_2  Brand Awareness  PAUSED             —      1000.00 USD  OUTCOME_AWARENESS  acc_2\n",
		},
		{
			name: "json off a terminal",
			args: "--limit 1",
			wantOut: `[
  {
    "id": "cmp_1",
    "platformAdAccountId": "act_991",
    "name": "Winter Sale",
    "objective": "OUTCOME_SALES",
    "status": "ACTIVE",
    "effectiveStatus": "ACTIVE",
    "dailyBudget": "25.00",
    "lifetimeBudget": null,
    "syncedAt": "2026-11-20T06:00:00Z",
    "account": {
      "currency": "EUR",
      "timezone": "Europe/Berlin"
    }
  }
]
`,
			wantErrOut: prov + "More rows: --offset 1 for the next page, or --all for every page.\n",
		},
		{
			name: "jsonl",
			args: "-o jsonl --offset 1",
			tty:  testapi.TTY{Stdout: true},
			wantOut: `{"id":"cmp_2","platformAdAccountId":"act_992","name":"Brand Awareness","objective":"OUTCOME_AWARENESS","status":"PAUSED","effectiveStatus":null,"dailyBudget":null,"lifetimeBudget":"1000.00","syncedAt":null,"account":{"currency":"USD","timezone":"America/New_York"}}
`,
			wantErrOut: prov,
		},
		{
			name: "csv",
			args: "-o csv",
			wantOut: "id,name,status,effectiveStatus,objective,dailyBudget,lifetimeBudget,currency,timezone,platformAdAccountId,syncedAt\n" +
				"cmp_1,Winter Sale,ACTIVE,ACTIVE,OUTCOME_SALES,25.00,,EUR,Europe/Berlin,act_991,2026-11-20T06:00:00Z\n" +
				"cmp_2,Brand Awareness,PAUSED,,OUTCOME_AWARENESS,,1000.00,USD,America/New_York,act_992,\n",
			wantErrOut: prov,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ios, _, stdout, stderr := testapi.Streams(tt.tty)
			cmd := NewCmdCampaigns(testapi.Factory(ios, api.Env("")), nil)
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
