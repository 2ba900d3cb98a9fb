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

// All iterates over every daily insight row in the date range, requesting
// page after page. It yields an error once and stops, including when the
// snapshot moves between pages ([ErrSnapshotMoved]). API: GET /insights.
func (s *InsightsService) All(ctx context.Context, opts *InsightListOptions) iter.Seq2[Insight, error] {
	return allInsights(ctx, s.client, opts)
}

// Pages iterates over the pages of insight rows, with each page's Meta (dataAsOf,
// nextOffset). It yields an error once and stops, including when the snapshot
// moves between pages ([ErrSnapshotMoved]). API: GET /insights.
func (s *InsightsService) Pages(ctx context.Context, opts *InsightListOptions) iter.Seq2[*Page[Insight], error] {
	return pages[Insight](ctx, s.client, "/insights", opts)
}
