package insights

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	svc "github.com/adsnap/svc/sdk-go"

	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
	"github.com/adsnap/svc/svc-cli/internal/iostreams"
	"github.com/adsnap/svc/svc-cli/internal/localcopy"
)

// SyncOptions are the parsed flags of `svc insights sync`.
type SyncOptions struct {
	IO     *iostreams.IOStreams
	Client func(context.Context, cmdutil.ClientOptions) (*svc.Client, error)
	// Site is the API site the copy comes from (stored with it).
	Site func() string

	To       string
	JSONL    bool
	KeyStdin bool
	Wait     bool
	Quiet    bool
}

// NewCmdSync returns `svc insights sync`.
func NewCmdSync(f *cmdutil.Factory, runF func(*SyncOptions) error) *cobra.Command {
	opts := &SyncOptions{IO: f.IOStreams, Client: f.Client, Site: f.SiteURL}
	var output string
	cmd := &cobra.Command{
		Use:   "sync --to FILE.db",
		Short: "Keep a local SQLite copy of the insight rows current",
		Long: `Keep a local SQLite copy of your organization's stored daily insight rows
current (API: GET /insights/changes). The first run reads every row; each
later run reads only the rows an import changed or removed since the previous
run, each once, however many imports ran in between. The file holds the rows
(table insights: id and the row's JSON as GET /insights returns it, with date,
platform_ad_account_id, campaign_id, currency, spend, impressions and clicks as
columns) and the sync token (table sync_state), never the API key.

It prints what it did: rows added, changed and removed. When the copy is older
than the service's change retention (35 days by default), the service refuses
its token and svc syncs the copy again from scratch by itself. A sync that
fails leaves the copy as it was.

-o jsonl also writes each change to standard output, one JSON object a line
({"change":"upsert","insight":{…}} or {"change":"delete","id":…}), for
pipelines; the summary then goes to standard error.`,
		Example: `  svc insights sync --to insights.db
  svc insights sync --to insights.db -o jsonl | my-loader
  sqlite3 insights.db "SELECT date, currency, sum(spend) FROM insights GROUP BY 1, 2"`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.To == "" {
				return cmdutil.FlagErrorf("--to FILE.db is required: the SQLite file of the copy")
			}
			switch output {
			case "", "text":
			case "jsonl":
				opts.JSONL = true
			default:
				return cmdutil.FlagErrorf("-o: %q is not text or jsonl", output)
			}
			if runF != nil {
				return runF(opts)
			}
			return syncRun(cmd.Context(), opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.To, "to", "", "the SQLite file of the copy (created if missing)")
	fs.StringVarP(&output, "output", "o", "", "text (the default: a summary) or jsonl (each change on standard output, the summary on standard error)")
	fs.BoolVar(&opts.KeyStdin, "key-stdin", false, "read the API key from the first line of standard input, without echo on a terminal (default: $SVC_API_KEY)")
	fs.BoolVar(&opts.Wait, "wait", false, "when rate limited (429), wait the time the service asks (60 s) and retry, up to 3 times")
	fs.BoolVarP(&opts.Quiet, "quiet", "q", false, "print no notices on standard error")
	return cmd
}

// errResync: the copy's token is older than the retention; synced again.
var errResync = errors.New("resync")

func syncRun(ctx context.Context, opts *SyncOptions) error {
	client, err := opts.Client(ctx, cmdutil.ClientOptions{KeyStdin: opts.KeyStdin, Wait: opts.Wait})
	if err != nil {
		return err
	}
	cp, err := localcopy.Open(ctx, opts.To)
	if err != nil {
		return err
	}
	defer cp.Close()
	st, err := cp.State(ctx)
	if err != nil {
		return fmt.Errorf("read %s: %w", opts.To, err)
	}
	site := opts.Site()
	if st.Site != "" && st.Site != site {
		return fmt.Errorf("%s is a copy of %s, not of %s: use another file", opts.To, st.Site, site)
	}
	counts, first, err := syncOnce(ctx, opts, client, cp, st.Token, site)
	if errors.Is(err, errResync) {
		if !opts.Quiet {
			fmt.Fprintf(opts.IO.ErrOut, "svc: the copy's sync token is older than the service's change retention: syncing %s again from scratch\n", opts.To)
		}
		counts, first, err = syncOnce(ctx, opts, client, cp, "", site)
	}
	if err != nil {
		return err
	}
	out := opts.IO.Out
	if opts.JSONL {
		out = opts.IO.ErrOut
	}
	kind := "changes since the last sync"
	if first {
		kind = "first sync"
	}
	fmt.Fprintf(out, "%s: %d added, %d changed, %d removed (%s: %d read", opts.To, counts.Added, counts.Changed, counts.Removed, kind, counts.Read)
	if counts.Unchanged+counts.Absent > 0 {
		fmt.Fprintf(out, "; %d already current, %d removals of rows not in the copy", counts.Unchanged, counts.Absent)
	}
	fmt.Fprintln(out, ")")
	return nil
}

// syncOnce applies one sync from token ("": a first sync, the copy emptied
// first) in one transaction of the copy.
func syncOnce(ctx context.Context, opts *SyncOptions, client *svc.Client, cp *localcopy.Copy, token, site string) (localcopy.Counts, bool, error) {
	tx, err := cp.Begin(ctx, token == "")
	if err != nil {
		return localcopy.Counts{}, false, fmt.Errorf("write %s: %w", opts.To, err)
	}
	defer tx.Rollback()
	var enc *json.Encoder
	if opts.JSONL {
		enc = json.NewEncoder(opts.IO.Out)
	}
	for ch, err := range client.Insights.Changes(ctx, token) {
		if errors.Is(err, svc.ErrResyncRequired) && token != "" {
			return tx.Counts, false, errResync
		}
		if err != nil {
			return tx.Counts, token == "", err
		}
		switch ch.Kind {
		case svc.ChangeUpsert:
			err = tx.Upsert(ctx, ch.ID, ch.Raw)
		case svc.ChangeDelete:
			err = tx.Delete(ctx, ch.ID)
		case svc.ChangeSyncToken:
			err = tx.Commit(ctx, ch.SyncToken, site, time.Now())
			return tx.Counts, token == "", err
		}
		if err == nil && enc != nil {
			err = writeChange(enc, opts.IO.Out, ch)
		}
		if err != nil {
			return tx.Counts, token == "", fmt.Errorf("write %s: %w", opts.To, err)
		}
	}
	return tx.Counts, token == "", errors.New("the sync ended without a token; the copy is unchanged")
}

// writeChange writes one change as a JSON line.
func writeChange(enc *json.Encoder, _ io.Writer, ch svc.Change) error {
	if ch.Kind == svc.ChangeUpsert {
		return enc.Encode(struct {
			Change  string          `json:"change"`
			Insight json.RawMessage `json:"insight"`
		}{"upsert", ch.Raw})
	}
	return enc.Encode(struct {
		Change    string `json:"change"`
		ID        string `json:"id"`
		AccountID string `json:"accountId"`
		Date      string `json:"date"`
	}{"delete", ch.ID, ch.AccountID, ch.Date.String()})
}
