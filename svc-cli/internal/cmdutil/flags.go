package cmdutil

import (
	"github.com/spf13/cobra"

	svc "github.com/adsnap/svc/sdk-go"
)

// ListFlags are the flags every list command (accounts, campaigns,
// insights) has.
type ListFlags struct {
	// Limit is the page size (1–100; 0: the server's default, 50).
	Limit int
	// Offset is the first row to return.
	Offset int
	// AccountID keeps one account's rows.
	AccountID string
	// All follows meta.nextOffset and returns every page.
	All bool
	// Output is the -o value as given: table, json, jsonl, csv or empty.
	Output string
	// KeyStdin reads the key from standard input.
	KeyStdin bool
	// Wait waits and retries on 429.
	Wait bool
	// Quiet prints no progress, no wait notices and no key-expiry warning.
	Quiet bool
}

// AddListFlags registers the list flags on cmd.
func AddListFlags(cmd *cobra.Command, lf *ListFlags) {
	fs := cmd.Flags()
	fs.IntVar(&lf.Limit, "limit", 0, "rows per page, 1 to 100 (default: the service's, 50)")
	fs.IntVar(&lf.Offset, "offset", 0, "rows to skip, 0 to 10000")
	fs.StringVar(&lf.AccountID, "accountId", "", "only the rows of this account id")
	fs.BoolVar(&lf.All, "all", false, "list every row (100 a page, paced within the rate limit; exit 7 if some rows cannot be reached)")
	fs.BoolVarP(&lf.Quiet, "quiet", "q", false, "print no progress, wait notices or key-expiry warning on standard error")
	fs.StringVarP(&lf.Output, "output", "o", "", "output format: table, json, jsonl or csv (default: table on a terminal, json otherwise); "+
		"in csv a cell that begins with =, +, -, @, tab or carriage return gets a leading ' so that spreadsheets do not run it as a formula (numbers such as -12.50 excepted)")
	fs.BoolVar(&lf.KeyStdin, "key-stdin", false, "read the API key from the first line of standard input, without echo on a terminal (default: $SVC_API_KEY)")
	fs.BoolVar(&lf.Wait, "wait", false, "when rate limited (429), wait the time the service asks (60 s) and retry, up to 3 times")
	_ = cmd.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"table", "json", "jsonl", "csv"}, cobra.ShellCompDirectiveNoFileComp
	})
}

// Check reports flag values that are wrong whatever the service says. The
// limit, offset and accountId ranges are checked by the SDK before the
// request (a *svc.ValidationError, also a usage error).
func (lf *ListFlags) Check(cmd *cobra.Command) error {
	if cmd.Flags().Changed("limit") && lf.Limit == 0 {
		return FlagErrorf("--limit must be between 1 and %d, not 0", svc.MaxLimit)
	}
	return nil
}

// ListOptions returns the SDK's paging options.
func (lf *ListFlags) ListOptions() svc.ListOptions {
	return svc.ListOptions{Limit: lf.Limit, Offset: lf.Offset, AccountID: lf.AccountID}
}

// ClientOptions returns the client options the flags ask for.
func (lf *ListFlags) ClientOptions() ClientOptions {
	return ClientOptions{KeyStdin: lf.KeyStdin, Wait: lf.Wait}
}
