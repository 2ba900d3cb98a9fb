package insights

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/adsnap/svc/svc-cli/internal/output"
)

// freshnessRun prints when the organization's insights were last imported
// and which days that import changed (--freshness; API: GET
// /insights/freshness): json and jsonl the API's data object, the table
// and csv one line of it each.
func freshnessRun(ctx context.Context, opts *InsightsOptions) error {
	client, err := opts.Client(ctx, opts.List.ClientOptions())
	if err != nil {
		return err
	}
	f, err := client.Insights.Freshness(ctx)
	if err != nil {
		return err
	}
	out := opts.IO.Out
	switch opts.Format {
	case output.JSON, output.JSONL:
		b, err := json.Marshal(f.Data)
		if err != nil {
			return fmt.Errorf("encode freshness: %w", err)
		}
		_, err = fmt.Fprintf(out, "%s\n", b)
		return err
	}
	li := f.Data.LastImport
	days := make([]string, 0)
	if li != nil {
		for _, d := range li.ChangedDays {
			days = append(days, d.String())
		}
	}
	if opts.Format == output.CSV {
		fmt.Fprintln(out, "dataAsOf,committedAt,upserts,deletes,changedDays")
		if li == nil {
			_, err = fmt.Fprintf(out, "%s,,,,\n", output.CSVTime(&f.Data.DataAsOf))
			return err
		}
		_, err = fmt.Fprintf(out, "%s,%s,%d,%d,%s\n", output.CSVTime(&f.Data.DataAsOf), output.CSVTime(&li.CommittedAt),
			li.Upserts, li.Deletes, strings.Join(days, " "))
		return err
	}
	fmt.Fprintf(out, "Data as of:   %s\n", output.CSVTime(&f.Data.DataAsOf))
	if li == nil {
		_, err = fmt.Fprintln(out, "Last import:  none recorded")
		return err
	}
	_, err = fmt.Fprintf(out, "Last import:  %s (%d rows added or changed, %d removed)\nChanged days: %s\n",
		output.CSVTime(&li.CommittedAt), li.Upserts, li.Deletes, strings.Join(days, ", "))
	return err
}
