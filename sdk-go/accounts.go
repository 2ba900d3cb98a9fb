package svc

import (
	"context"
	"iter"
)

// AccountsService reads ad account snapshots. API: GET /accounts.
type AccountsService struct{ client *Client }

// List returns one page of ad accounts, ordered by id. API: GET /accounts.
func (s *AccountsService) List(ctx context.Context, opts *AccountListOptions) (*AccountPage, error) {
	return list[Account](ctx, s.client, "/accounts", copyOrZero(opts), false)
}

// All iterates over every ad account, 100 a page unless opts.Limit says
// otherwise. No filter splits accounts, so an organization with more than
// 10,100 accounts (far more than any has) gets [ErrIncomplete] after the
// first 10,100. It yields an error once and stops, including when the
// snapshot moves between pages ([ErrSnapshotMoved]). API: GET /accounts.
func (s *AccountsService) All(ctx context.Context, opts *AccountListOptions) iter.Seq2[Account, error] {
	return values(allAccounts(ctx, s.client, opts))
}

// AllRaw is All, yielding each row with the row exactly as the service sent
// it (Row.Raw), for printing rows unchanged.
func (s *AccountsService) AllRaw(ctx context.Context, opts *AccountListOptions) iter.Seq2[Row[Account], error] {
	return allAccounts(ctx, s.client, opts)
}

// Pages iterates over the pages of ad accounts, with each page's Meta (dataAsOf,
// nextOffset). It yields an error once and stops, including when the snapshot
// moves between pages ([ErrSnapshotMoved]). API: GET /accounts.
func (s *AccountsService) Pages(ctx context.Context, opts *AccountListOptions) iter.Seq2[*Page[Account], error] {
	return pages[Account](ctx, s.client, "/accounts", opts)
}
