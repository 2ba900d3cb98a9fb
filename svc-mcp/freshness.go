package svcmcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	svc "github.com/adsnap/svc/sdk-go"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Freshness says how fresh the organization's snapshot is and which days
// svc_insights can be asked for, read with two one-row requests. It is a
// resource (svc://freshness) and the tool svc_freshness.

const freshnessURI = "svc://freshness"

// freshness is the structuredContent of svc_freshness and the JSON of the
// resource.
type freshness struct {
	Source   string `json:"source" jsonschema:"always stored_snapshot"`
	DataAsOf string `json:"dataAsOf" jsonschema:"newest synchronization time among the organization's stored rows"`
	Today    string `json:"today" jsonschema:"today's UTC day: the latest day svc_insights accepts"`
	// NewestInsightDay is the first day of the listing for the last 90
	// days: insights are ordered newest day first.
	NewestInsightDay *string `json:"newestInsightDay" jsonschema:"the newest day that has insight rows in the last 90 days; null when there is none"`
	EarliestFrom     string  `json:"earliestFrom" jsonschema:"the earliest from of a range that ends today (from..to spans at most 90 days, both included)"`
	DefaultPeriod    string  `json:"defaultPeriod" jsonschema:"the days svc_insights reads without from and to"`
	MaxDays          int     `json:"maxDays" jsonschema:"the longest from..to, in days, both included"`
	// LastImportAt and ChangedDays come from GET /insights/freshness
	// (issue 46); null when the service is older or has no import.
	LastImportAt *string  `json:"lastImportAt" jsonschema:"when the last import committed; null if unknown"`
	ChangedDays  []string `json:"changedDays" jsonschema:"the days whose rows the last import changed (provisional: a later import may restate them); null if unknown"`
}

func (t *tools) freshness(ctx context.Context) (freshness, error) {
	c, err := t.sdk()
	if err != nil {
		return freshness{}, err
	}
	today := svc.DateOf(t.now().UTC())
	window, err := svc.InsightDates(today.AddDays(-(svc.MaxInsightDays - 1)), today, today)
	if err != nil {
		return freshness{}, err
	}
	def, err := svc.InsightDates(svc.Date{}, svc.Date{}, today)
	if err != nil {
		return freshness{}, err
	}
	ins, err := c.Insights.List(ctx, &svc.InsightListOptions{ListOptions: svc.ListOptions{Limit: 1}, From: window.From, To: window.To})
	if err != nil {
		return freshness{}, err
	}
	f := freshness{
		Source: "stored_snapshot", DataAsOf: cleanText(ins.Meta.DataAsOf), Today: today.String(),
		EarliestFrom: window.From.String(), DefaultPeriod: def.From.String() + ".." + def.To.String(), MaxDays: svc.MaxInsightDays,
	}
	if len(ins.Data) > 0 && ins.Data[0].Date != nil {
		d := ins.Data[0].Date.String()
		f.NewestInsightDay = &d
	}
	fr, err := c.Insights.Freshness(ctx)
	switch {
	case err != nil && svc.IsNotFound(err): // a service older than the endpoint
	case err != nil:
		return freshness{}, err
	case fr.Data.LastImport != nil:
		at := fr.Data.LastImport.CommittedAt.UTC().Format(time.RFC3339)
		f.LastImportAt = &at
		f.ChangedDays = make([]string, len(fr.Data.LastImport.ChangedDays))
		for i, d := range fr.Data.LastImport.ChangedDays {
			f.ChangedDays[i] = d.String()
		}
	}
	return f, nil
}

func (f freshness) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Stored snapshot (not live, may be stale): data as of %s.\n", orUnknown(f.DataAsOf))
	if f.LastImportAt != nil {
		fmt.Fprintf(&b, "Last import committed at %s; it changed %d days (provisional, may be restated): %s.\n",
			*f.LastImportAt, len(f.ChangedDays), strings.Join(f.ChangedDays, ", "))
	}
	if f.NewestInsightDay != nil {
		fmt.Fprintf(&b, "Newest day with insight rows in the last %d days: %s.\n", f.MaxDays, *f.NewestInsightDay)
	} else {
		fmt.Fprintf(&b, "No insight rows in the last %d days.\n", f.MaxDays)
	}
	fmt.Fprintf(&b, "svc_insights reads any from..to of at most %d days (both included), none after today (%s, UTC): for a range ending today, from is %s or later. Without from and to it reads %s.",
		f.MaxDays, f.Today, f.EarliestFrom, f.DefaultPeriod)
	return b.String()
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}

// freshnessInput are the arguments of svc_freshness: none.
type freshnessInput struct{}

func addFreshness(s *mcp.Server, t *tools) {
	s.AddResource(&mcp.Resource{
		URI:         freshnessURI,
		Name:        "freshness",
		Title:       "Freshness",
		Description: "When the data was last imported, the days that import changed, and the days svc_insights can read. Same as svc_freshness (scope insights:read).",
		MIMEType:    "application/json",
	}, func(ctx context.Context, _ *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		f, err := t.freshness(ctx)
		if err != nil {
			return nil, t.failed(ctx, "svc://freshness", err, "insights:read")
		}
		raw, err := json.Marshal(f)
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{
			Contents: []*mcp.ResourceContents{{URI: freshnessURI, MIMEType: "application/json", Text: string(raw)}},
			// One organization's data, which a sync may change at any time.
			Cacheable: mcp.Cacheable{TTLMs: freshnessTTL, CacheScope: "private"},
		}, nil
	})
	no := false
	mcp.AddTool(s, &mcp.Tool{
		Name:         "svc_freshness",
		Title:        "Freshness (stored snapshot)",
		Description:  "When the data was last imported and which days that import changed (they may change again), dataAsOf, the newest day with rows, and the days svc_insights can read. Same as the resource " + freshnessURI + ". Read-only; scope insights:read.",
		OutputSchema: compactSchema[freshness](),
		Annotations:  &mcp.ToolAnnotations{Title: "Freshness", ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, _ freshnessInput) (*mcp.CallToolResult, freshness, error) {
		f, err := t.freshness(ctx)
		if err != nil {
			return nil, freshness{}, t.failed(ctx, "svc_freshness", err, "insights:read")
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: f.text()}}}, f, nil
	})
}

// freshnessTTL is how long a host may cache the freshness resource: five
// minutes, as a sync may land at any time.
const freshnessTTL = 5 * 60 * 1000

func init() { registerTool("svc_freshness", addFreshness) }
