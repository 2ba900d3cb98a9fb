package svc

import (
	"context"
	"iter"
)

// InsightsService reads daily insight snapshots. API: GET /insights.
type InsightsService struct{ client *Client }

// List returns one page of daily insight rows, newest date first. API: GET
// /insights.
func (s *InsightsService) List(ctx context.Context, opts *InsightListOptions) (*InsightPage, error) {
	return list[Insight](ctx, s.client, "/insights", copyOrZero(opts), false)
}

// All iterates over every daily insight row in the date range, 100 rows a
// page unless opts.Limit says otherwise, date descending then id. Past the
// offset limit it narrows the date range to the last day reached and goes on
// (a day that alone passes the limit is read account by account, its rows
// then by account, then id); none is yielded twice. It yields an error once
// and stops: [ErrIncomplete] when no split reaches the rest (one account's
// day over 10,100 rows), [ErrSnapshotMoved] when the snapshot moves. API:
// GET /insights.
func (s *InsightsService) All(ctx context.Context, opts *InsightListOptions) iter.Seq2[Insight, error] {
	return values(allInsights(ctx, s.client, opts))
}

// AllRaw is All, yielding each row with the row exactly as the service sent
// it (Row.Raw), for printing rows unchanged.
func (s *InsightsService) AllRaw(ctx context.Context, opts *InsightListOptions) iter.Seq2[Row[Insight], error] {
	return allInsights(ctx, s.client, opts)
}

// Pages iterates over the pages of insight rows, with each page's Meta (dataAsOf,
// nextOffset). It yields an error once and stops, including when the snapshot
// moves between pages ([ErrSnapshotMoved]). API: GET /insights.
func (s *InsightsService) Pages(ctx context.Context, opts *InsightListOptions) iter.Seq2[*Page[Insight], error] {
	return pages[Insight](ctx, s.client, "/insights", opts)
}
