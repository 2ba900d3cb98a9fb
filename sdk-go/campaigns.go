package svc

import (
	"context"
	"iter"
)

// CampaignsService reads campaign snapshots. API: GET /campaigns.
type CampaignsService struct{ client *Client }

// List returns one page of campaigns, ordered by id. API: GET /campaigns.
func (s *CampaignsService) List(ctx context.Context, opts *CampaignListOptions) (*CampaignPage, error) {
	return list[Campaign](ctx, s.client, "/campaigns", copyOrZero(opts), false)
}

// All iterates over every campaign, 100 a page unless opts.Limit says
// otherwise, by id. When the organization's campaigns pass the offset limit
// (a first request at offset 10000 tells), it lists the accounts, then each
// account's campaigns (by account, then id). It yields an error once and
// stops: [ErrIncomplete] when one account's campaigns pass the limit,
// [ErrSnapshotMoved] when the snapshot moves. API: GET /campaigns.
func (s *CampaignsService) All(ctx context.Context, opts *CampaignListOptions) iter.Seq2[Campaign, error] {
	return values(allCampaigns(ctx, s.client, opts))
}

// AllRaw is All, yielding each row with the row exactly as the service sent
// it (Row.Raw), for printing rows unchanged.
func (s *CampaignsService) AllRaw(ctx context.Context, opts *CampaignListOptions) iter.Seq2[Row[Campaign], error] {
	return allCampaigns(ctx, s.client, opts)
}

// Pages iterates over the pages of campaigns, with each page's Meta (dataAsOf,
// nextOffset). It yields an error once and stops, including when the snapshot
// moves between pages ([ErrSnapshotMoved]). API: GET /campaigns.
func (s *CampaignsService) Pages(ctx context.Context, opts *CampaignListOptions) iter.Seq2[*Page[Campaign], error] {
	return pages[Campaign](ctx, s.client, "/campaigns", opts)
}
