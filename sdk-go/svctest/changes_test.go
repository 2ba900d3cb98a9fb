package svctest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	svc "github.com/adsnap/svc/sdk-go"
	"github.com/adsnap/svc/sdk-go/svctest"
)

// sync reads a whole sync with the SDK: the ids upserted and removed, and
// the new token ("" when it failed).
func sync(ctx context.Context, c *svc.Client, token string) (ups, dels []string, next string, err error) {
	for ch, err := range c.Insights.Changes(ctx, token) {
		if err != nil {
			return ups, dels, "", err
		}
		switch ch.Kind {
		case svc.ChangeUpsert:
			if ch.Insight == nil || ch.Insight.ID != ch.ID || len(ch.Raw) == 0 {
				return ups, dels, "", fmt.Errorf("upsert %+v", ch)
			}
			ups = append(ups, ch.ID)
		case svc.ChangeDelete:
			dels = append(dels, ch.ID)
		case svc.ChangeSyncToken:
			next = ch.SyncToken
		}
	}
	return ups, dels, next, nil
}

// TestChangesIterator: Insights.Changes over the double reads a first sync
// across pages and ends with the token; from it, the newest change of each
// row since; a pruned token is a *ResyncError matching ErrResyncRequired; a
// token of another key is a 400.
func TestChangesIterator(t *testing.T) {
	key := svctest.MakeKey(strings.Repeat("c", 37))
	api := &svctest.API{Key: key, DataAsOf: "2026-11-20T06:00:00Z", GeneratedAt: "2026-11-20T07:00:00Z"}
	for i := range 2500 {
		api.Insights = append(api.Insights, svctest.Row{AccountID: "a1", JSON: fmt.Sprintf(`{"id":"i%d","platformAdAccountId":"p","attributionWindow":"w","campaignId":null,"date":"2026-11-19T00:00:00Z","syncedAt":null,"account":{"currency":"EUR","timezone":"UTC"},"purchaseMeasurement":"unavailable","spend":"1.00","ctr":"1","cpc":"1","cpm":"1","impressions":1,"reach":1,"clicks":1,"purchases":null,"purchaseValue":null,"roas":null}`, i)})
	}
	srv := httptest.NewServer(api)
	defer srv.Close()
	c, err := svc.NewClient(svc.WithAPIKey(key), svc.WithSiteURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	ups, _, token, err := sync(ctx, c, "")
	if err != nil || len(ups) != 2500 || token == "" {
		t.Fatalf("first sync: %d rows, token %q, %v", len(ups), token, err)
	}
	api.Changes = []svctest.ChangeEntry{
		{ID: "i3", Row: api.Insights[3]}, {ID: "i3", Row: api.Insights[3]},
		{ID: "i9", Delete: true, Row: svctest.Row{AccountID: "a1"}, Date: "2026-11-19"},
	}
	ups, dels, next, err := sync(ctx, c, token)
	if err != nil || len(ups) != 1 || ups[0] != "i3" || len(dels) != 1 || dels[0] != "i9" || next == "" {
		t.Fatalf("sync: %v %v %q %v", ups, dels, next, err)
	}
	if ups, dels, _, err := sync(ctx, c, next); err != nil || len(ups)+len(dels) != 0 {
		t.Fatalf("sync with nothing new: %v %v %v", ups, dels, err)
	}
	api.ChangesPrunedBelow = 1
	_, _, _, err = sync(ctx, c, token)
	var re *svc.ResyncError
	if !errors.Is(err, svc.ErrResyncRequired) || !errors.As(err, &re) || re.Err.StatusCode != 410 {
		t.Fatalf("a pruned token: %v", err)
	}
	other, _ := svc.NewClient(svc.WithAPIKey(svctest.MakeKey(strings.Repeat("o", 37))), svc.WithSiteURL(srv.URL))
	_ = other
	api.Key = svctest.MakeKey(strings.Repeat("o", 37)) // the same double under another key: the tokens are not its
	_, _, _, err = sync(ctx, other, next)
	var ae *svc.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 400 || ae.Messages[0] != svctest.MessageBadSince {
		t.Fatalf("another key's token: %v", err)
	}
}
