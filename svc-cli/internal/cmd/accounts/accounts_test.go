package accounts

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
	"github.com/adsnap/svc/svc-cli/internal/output"
	"github.com/adsnap/svc/svc-cli/internal/testapi"
)

func TestNewCmdAccounts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    string
		tty     bool
		want    cmdutil.ListFlags
		format  output.Format
		wantErr string
	}{
		{name: "defaults, not a terminal", args: "", format: output.JSON},
		{name: "defaults, terminal", args: "", tty: true, format: output.Table},
		{name: "every flag", args: "--limit 10 --offset 20 --accountId acc_1 --all -o csv --key-stdin --wait",
			want:   cmdutil.ListFlags{Limit: 10, Offset: 20, AccountID: "acc_1", All: true, Output: "csv", KeyStdin: true, Wait: true},
			format: output.CSV},
		{name: "jsonl on a terminal", args: "--output jsonl", tty: true, want: cmdutil.ListFlags{Output: "jsonl"}, format: output.JSONL},
		{name: "table off a terminal", args: "-o table", want: cmdutil.ListFlags{Output: "table"}, format: output.Table},
		{name: "unknown format", args: "-o yaml", wantErr: `unknown output format "yaml": use table, json, jsonl or csv`},
		{name: "limit zero", args: "--limit 0", wantErr: "--limit must be between 1 and 100, not 0"},
		{name: "limit not a number", args: "--limit ten", wantErr: `invalid argument "ten" for "--limit" flag: strconv.ParseInt: parsing "ten": invalid syntax`},
		{name: "no key flag", args: "--key svc_live_x", wantErr: "unknown flag: --key"},
		{name: "argument", args: "extra", wantErr: `"accounts" takes no arguments, got "extra"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ios, _, _, _ := testapi.Streams(testapi.TTY{Stdout: tt.tty})
			var got *AccountsOptions
			cmd := NewCmdAccounts(testapi.Factory(ios, nil), func(o *AccountsOptions) error {
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

func TestAccountsRun(t *testing.T) {
	t.Parallel()
	api := testapi.New()
	t.Cleanup(api.Close)
	const prov = "Stored snapshot (not live) · data as of 2026-11-20T06:00:00Z\n"
	tests := []struct {
		name       string
		route      string
		args       string
		tty        testapi.TTY
		wantOut    string
		wantErrOut string
	}{
		{
			name: "table on a terminal",
			tty:  testapi.TTY{Stdout: true},
			wantOut: prov +
				"ID     NAME             CURRENCY  TIMEZONE          ACTIVE  LAST SYNC\n" +
				"acc_1  Acme EU          EUR       Europe/Berlin     yes     2026-11-20T06:00:00Z\n" +
				"acc_2  Acme US, \"East\"  USD       America/New_York  no      —\n",
		},
		{
			name: "json off a terminal",
			wantOut: `[
  {
    "id": "acc_1",
    "accountName": "Acme EU",
    "currency": "EUR",
    "timezone": "Europe/Berlin",
    "isActive": true,
    "lastSyncAt": "2026-11-20T06:00:00Z"
  },
  {
    "id": "acc_2",
    "accountName": "Acme US, \"East\"",
    "currency": "USD",
    "timezone": "America/New_York",
    "isActive": false,
    "lastSyncAt": null
  }
]
`,
			wantErrOut: prov,
		},
		{
			name: "jsonl on a terminal",
			args: "-o jsonl",
			tty:  testapi.TTY{Stdout: true, Stderr: true},
			wantOut: `{"id":"acc_1","accountName":"Acme EU","currency":"EUR","timezone":"Europe/Berlin","isActive":true,"lastSyncAt":"2026-11-20T06:00:00Z"}
{"id":"acc_2","accountName":"Acme US, \"East\"","currency":"USD","timezone":"America/New_York","isActive":false,"lastSyncAt":null}
`,
			wantErrOut: prov,
		},
		{
			name: "csv off a terminal",
			args: "-o csv",
			wantOut: "id,accountName,currency,timezone,isActive,lastSyncAt\n" +
				"acc_1,Acme EU,EUR,Europe/Berlin,true,2026-11-20T06:00:00Z\n" +
				"acc_2,\"Acme US, \"\"East\"\"\",USD,America/New_York,false,\n",
			wantErrOut: prov,
		},
		{
			name:       "one page of several",
			args:       "--limit 1 -o jsonl --accountId acc_1",
			route:      "",
			wantOut:    `{"id":"acc_1","accountName":"Acme EU","currency":"EUR","timezone":"Europe/Berlin","isActive":true,"lastSyncAt":"2026-11-20T06:00:00Z"}` + "\n",
			wantErrOut: prov,
		},
		{
			name:       "a page with more after it",
			args:       "--limit 1 -o csv",
			wantOut:    "id,accountName,currency,timezone,isActive,lastSyncAt\nacc_1,Acme EU,EUR,Europe/Berlin,true,2026-11-20T06:00:00Z\n",
			wantErrOut: prov + "More rows: --offset 1 for the next page, or --all for every page.\n",
		},
		{
			name:       "all pages, one json array",
			args:       "--limit 1 --all -o json",
			wantOut:    "[\n  {\n    \"id\": \"acc_1\",\n    \"accountName\": \"Acme EU\",\n    \"currency\": \"EUR\",\n    \"timezone\": \"Europe/Berlin\",\n    \"isActive\": true,\n    \"lastSyncAt\": \"2026-11-20T06:00:00Z\"\n  },\n  {\n    \"id\": \"acc_2\",\n    \"accountName\": \"Acme US, \\\"East\\\"\",\n    \"currency\": \"USD\",\n    \"timezone\": \"America/New_York\",\n    \"isActive\": false,\n    \"lastSyncAt\": null\n  }\n]\n",
			wantErrOut: prov,
		},
		{
			name:       "all pages with progress on a terminal",
			args:       "--limit 1 --all -o csv",
			tty:        testapi.TTY{Stderr: true},
			wantOut:    "id,accountName,currency,timezone,isActive,lastSyncAt\nacc_1,Acme EU,EUR,Europe/Berlin,true,2026-11-20T06:00:00Z\nacc_2,\"Acme US, \"\"East\"\"\",USD,America/New_York,false,\n",
			wantErrOut: "\r\x1b[KRead 1 rows (1 pages)…\r\x1b[K" + prov + "\r\x1b[KRead 2 rows (2 pages)…\r\x1b[K",
		},
		{
			// OWASP's CSV injection rule: a cell that begins with =, +, -,
			// @, tab or carriage return gets a leading ', except a number.
			name:  "csv cells a spreadsheet would run as formulas start with a quote",
			route: "/formulas",
			args:  "-o csv",
			wantOut: "id,accountName,currency,timezone,isActive,lastSyncAt\n" +
				`acc_1,"'=HYPERLINK(""http://x"",""go"")",EUR,"'@SUM(1,1)",true,` + "\n" +
				`acc_2,'+cmd|' /C calc'!A0,USD,'-2+3,false,` + "\n" +
				"acc_3,'\tTab,EUR,\"'\rReturn\",true,\n" +
				"acc_4,-12.50,EUR,UTC,true,\n",
			wantErrOut: prov,
		},
		{
			name:  "csv on a terminal: formulas quoted, controls escaped",
			route: "/formulas",
			args:  "-o csv --all --limit 3",
			tty:   testapi.TTY{Stdout: true},
			wantOut: "id,accountName,currency,timezone,isActive,lastSyncAt\n" +
				`acc_1,"'=HYPERLINK(""http://x"",""go"")",EUR,"'@SUM(1,1)",true,` + "\n" +
				`acc_2,'+cmd|' /C calc'!A0,USD,'-2+3,false,` + "\n" +
				`acc_3,'\x09Tab,EUR,'\x0dReturn,true,` + "\n" +
				"acc_4,-12.50,EUR,UTC,true,\n",
			wantErrOut: prov,
		},
		{
			name:  "jsonl keeps the stored values",
			route: "/formulas",
			args:  "-o jsonl",
			wantOut: `{"id":"acc_1","accountName":"=HYPERLINK(\"http://x\",\"go\")","currency":"EUR","timezone":"@SUM(1,1)","isActive":true,"lastSyncAt":null}
{"id":"acc_2","accountName":"+cmd|' /C calc'!A0","currency":"USD","timezone":"-2+3","isActive":false,"lastSyncAt":null}
{"id":"acc_3","accountName":"\tTab","currency":"EUR","timezone":"\rReturn","isActive":true,"lastSyncAt":null}
{"id":"acc_4","accountName":"-12.50","currency":"EUR","timezone":"UTC","isActive":true,"lastSyncAt":null}
`,
			wantErrOut: prov,
		},
		{
			name:  "names cannot drive the terminal",
			route: "/nasty",
			tty:   testapi.TTY{Stdout: true},
			wantOut: prov +
				"ID     NAME                                 CURRENCY  TIMEZONE       ACTIVE  LAST SYNC\n" +
				`acc_1  \x1b[31mRED\x1b[0m \u202eevil\u202c  EUR       Europe/Berlin  yes     —` + "\n",
		},
		{
			name:    "empty table",
			route:   "/empty",
			tty:     testapi.TTY{Stdout: true},
			wantOut: prov + "ID  NAME  CURRENCY  TIMEZONE  ACTIVE  LAST SYNC\n",
		},
		{
			name:       "empty json is an empty array",
			route:      "/empty",
			wantOut:    "[]\n",
			wantErrOut: prov,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ios, _, stdout, stderr := testapi.Streams(tt.tty)
			cmd := NewCmdAccounts(testapi.Factory(ios, api.Env(tt.route)), nil)
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

func TestAccountsRunColor(t *testing.T) {
	t.Parallel()
	api := testapi.New()
	t.Cleanup(api.Close)
	for _, noColor := range []bool{false, true} {
		ios, _, stdout, _ := testapi.Streams(testapi.TTY{Stdout: true, Color: !noColor})
		cmd := NewCmdAccounts(testapi.Factory(ios, api.Env("/empty")), nil)
		if err := testapi.Execute(t, cmd, ""); err != nil {
			t.Fatal(err)
		}
		want := "Stored snapshot (not live) · data as of 2026-11-20T06:00:00Z\n" +
			"\x1b[1mID\x1b[0m  \x1b[1mNAME\x1b[0m  \x1b[1mCURRENCY\x1b[0m  \x1b[1mTIMEZONE\x1b[0m  \x1b[1mACTIVE\x1b[0m  \x1b[1mLAST SYNC\x1b[0m\n"
		if noColor {
			want = "Stored snapshot (not live) · data as of 2026-11-20T06:00:00Z\nID  NAME  CURRENCY  TIMEZONE  ACTIVE  LAST SYNC\n"
		}
		if diff := cmp.Diff(want, stdout.String()); diff != "" {
			t.Errorf("NO_COLOR=%v: stdout (-want +got):\n%s", noColor, diff)
		}
	}
}
