package svc

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
)

// pagedAccounts serves total accounts, limit per page, with nextOffset set
// only when more rows exist, so a full final page is followed by an empty
// one when total is a multiple of limit and emptyFinal is set. asOf gives
// the dataAsOf for each offset.
func pagedAccounts(t *testing.T, total int, emptyFinal bool, asOf func(offset int) string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/accounts" {
			t.Errorf("path = %q", r.URL.Path)
		}
		q := r.URL.Query()
		limit, offset := 50, 0
		if v := q.Get("limit"); v != "" {
			limit, _ = strconv.Atoi(v)
		}
		if v := q.Get("offset"); v != "" {
			offset, _ = strconv.Atoi(v)
		}
		data := []Account{}
		for i := offset; i < min(offset+limit, total); i++ {
			data = append(data, Account{ID: fmt.Sprintf("acc_%02d", i), Currency: "EUR"})
		}
		var next *int
		end := offset + len(data)
		if end < total || (emptyFinal && len(data) > 0 && end == total) {
			next = &end
		}
		json.NewEncoder(w).Encode(Page[Account]{Data: data, Meta: Meta{
			Source: "stored_snapshot", Limit: limit, Offset: offset, NextOffset: next,
			Returned: len(data), DataAsOf: asOf(offset),
		}})
	}
}

func sameSnapshot(int) string { return "2026-11-20T06:00:00Z" }

func ids(t *testing.T, seq func(func(Account, error) bool)) ([]string, error) {
	t.Helper()
	var got []string
	for a, err := range seq {
		if err != nil {
			return got, err
		}
		got = append(got, a.ID)
	}
	return got, nil
}

func wantIDs(from, to int) []string {
	var s []string
	for i := from; i < to; i++ {
		s = append(s, fmt.Sprintf("acc_%02d", i))
	}
	return s
}

func TestAllFollowsPages(t *testing.T) {
	t.Parallel()
	c, srv := newServer(t, pagedAccounts(t, 7, false, sameSnapshot))
	opts := &AccountListOptions{ListOptions{Limit: 3, AccountID: "acc_x"}}
	got, err := ids(t, c.Accounts.All(t.Context(), opts))
	if err != nil {
		t.Fatalf("All: %v", err)
	}
	if !slices.Equal(got, wantIDs(0, 7)) {
		t.Errorf("All = %v, want %v", got, wantIDs(0, 7))
	}
	var queries []string
	for _, r := range srv.requests() {
		queries = append(queries, r.URL.RawQuery)
	}
	wantQ := []string{"accountId=acc_x&limit=3", "accountId=acc_x&limit=3&offset=3", "accountId=acc_x&limit=3&offset=6"}
	if !slices.Equal(queries, wantQ) {
		t.Errorf("queries = %q, want %q", queries, wantQ)
	}
	if opts.Offset != 0 {
		t.Errorf("All changed the caller's options: Offset = %d", opts.Offset)
	}
}

func TestAllAcceptsEmptyFinalPage(t *testing.T) {
	t.Parallel()
	c, srv := newServer(t, pagedAccounts(t, 6, true, sameSnapshot))
	got, err := ids(t, c.Accounts.All(t.Context(), &AccountListOptions{ListOptions{Limit: 3}}))
	if err != nil {
		t.Fatalf("All: %v", err)
	}
	if !slices.Equal(got, wantIDs(0, 6)) {
		t.Errorf("All = %v, want %v", got, wantIDs(0, 6))
	}
	if n := len(srv.requests()); n != 3 {
		t.Errorf("%d requests, want 3 (two full pages and an empty one)", n)
	}
}

func TestAllStartsAtOffsetAndCopiesOptions(t *testing.T) {
	t.Parallel()
	c, _ := newServer(t, pagedAccounts(t, 5, false, sameSnapshot))
	opts := &AccountListOptions{ListOptions{Limit: 2, Offset: 1}}
	seq := c.Accounts.All(t.Context(), opts)
	opts.Offset = 4 // changed after All: must not matter
	for range 2 {   // a second range starts again
		got, err := ids(t, seq)
		if err != nil {
			t.Fatalf("All: %v", err)
		}
		if !slices.Equal(got, wantIDs(1, 5)) {
			t.Errorf("All = %v, want %v", got, wantIDs(1, 5))
		}
	}
}

func TestAllSnapshotMoved(t *testing.T) {
	t.Parallel()
	c, srv := newServer(t, pagedAccounts(t, 9, false, func(offset int) string {
		if offset >= 6 {
			return "2026-11-20T07:00:00Z"
		}
		return "2026-11-20T06:00:00Z"
	}))
	var got []string
	var errs []error
	for a, err := range c.Accounts.All(t.Context(), &AccountListOptions{ListOptions{Limit: 3}}) {
		if err != nil {
			errs = append(errs, err)
			continue // the iterator must stop by itself
		}
		got = append(got, a.ID)
	}
	if !slices.Equal(got, wantIDs(0, 6)) {
		t.Errorf("rows = %v, want only the rows of the first snapshot %v", got, wantIDs(0, 6))
	}
	if len(errs) != 1 || !errors.Is(errs[0], ErrSnapshotMoved) {
		t.Fatalf("errors = %v, want one ErrSnapshotMoved", errs)
	}
	t.Logf("error: %v", errs[0])
	if n := len(srv.requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

func TestAllYieldsErrorOnce(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			jsonHandler(http.StatusOK, `{"data":[{"id":"acc_1"}],"meta":{"nextOffset":1,"dataAsOf":"x"}}`)(w, r)
			return
		}
		jsonHandler(http.StatusServiceUnavailable, `{"statusCode":503,"message":"unavailable"}`)(w, r)
	})
	var got []string
	var errs []error
	for a, err := range c.Accounts.All(t.Context(), nil) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		got = append(got, a.ID)
	}
	if !slices.Equal(got, []string{"acc_1"}) || len(errs) != 1 || !IsUnavailable(errs[0]) {
		t.Errorf("rows %v, errors %v; want [acc_1] and one 503", got, errs)
	}
}

func TestAllStopsOnBreak(t *testing.T) {
	t.Parallel()
	c, srv := newServer(t, pagedAccounts(t, 9, false, sameSnapshot))
	for a, err := range c.Accounts.All(t.Context(), &AccountListOptions{ListOptions{Limit: 3}}) {
		if err != nil {
			t.Fatal(err)
		}
		if a.ID == "acc_01" {
			break
		}
	}
	if n := len(srv.requests()); n != 1 {
		t.Errorf("%d requests after break on the first page, want 1", n)
	}
}

func TestAllRefusesNonAdvancingOffset(t *testing.T) {
	t.Parallel()
	c, srv := newServer(t, jsonHandler(http.StatusOK, `{"data":[{"id":"a"}],"meta":{"offset":0,"nextOffset":0,"dataAsOf":"x"}}`))
	var errs []error
	for _, err := range c.Accounts.All(t.Context(), nil) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) != 1 || len(srv.requests()) != 1 {
		t.Errorf("errors %v after %d requests; want one error after one request", errs, len(srv.requests()))
	}
}

func TestAllCampaignsAndInsights(t *testing.T) {
	t.Parallel()
	pages := map[string]string{
		"":      `{"data":[{"id":"x1"}],"meta":{"nextOffset":1,"dataAsOf":"s"}}`,
		"1":     `{"data":[{"id":"x2"}],"meta":{"nextOffset":null,"dataAsOf":"s"}}`,
		"10000": `{"data":[],"meta":{"limit":100,"offset":10000,"nextOffset":null,"dataAsOf":"s"}}`, // campaigns: the probe past which a split is needed
	}
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		jsonHandler(http.StatusOK, pages[r.URL.Query().Get("offset")])(w, r)
	})
	var got []string
	for cmp, err := range c.Campaigns.All(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, "campaign "+cmp.ID)
	}
	for ins, err := range c.Insights.All(t.Context(), &InsightListOptions{From: Date{2026, 11, 1}}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, "insight "+ins.ID)
	}
	want := []string{"campaign x1", "campaign x2", "insight x1", "insight x2"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestPagesYieldsEachPageWithMeta(t *testing.T) {
	t.Parallel()
	c, srv := newServer(t, pagedAccounts(t, 6, true, sameSnapshot))
	var offsets, sizes []int
	for page, err := range c.Accounts.Pages(t.Context(), &AccountListOptions{ListOptions{Limit: 3}}) {
		if err != nil {
			t.Fatalf("Pages: %v", err)
		}
		if page.Meta.DataAsOf != sameSnapshot(0) {
			t.Errorf("page meta = %+v", page.Meta)
		}
		offsets = append(offsets, page.Meta.Offset)
		sizes = append(sizes, len(page.Data))
	}
	if !slices.Equal(offsets, []int{0, 3, 6}) || !slices.Equal(sizes, []int{3, 3, 0}) {
		t.Errorf("pages at offsets %v with %v rows, want [0 3 6] with [3 3 0]", offsets, sizes)
	}
	if n := len(srv.requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

func TestPagesStopsAfterFirstPageOnBreak(t *testing.T) {
	t.Parallel()
	c, srv := newServer(t, pagedAccounts(t, 9, false, sameSnapshot))
	for page, err := range c.Accounts.Pages(t.Context(), &AccountListOptions{ListOptions{Limit: 3}}) {
		if err != nil || len(page.Data) != 3 {
			t.Fatalf("first page: %v %v", page, err)
		}
		break
	}
	if n := len(srv.requests()); n != 1 {
		t.Errorf("%d requests after breaking on the first page, want 1", n)
	}
}

func TestPagesSnapshotMoved(t *testing.T) {
	t.Parallel()
	c, _ := newServer(t, pagedAccounts(t, 9, false, func(offset int) string {
		if offset >= 3 {
			return "2026-11-21T06:00:00Z"
		}
		return sameSnapshot(offset)
	}))
	var got int
	var last error
	for _, err := range c.Accounts.Pages(t.Context(), &AccountListOptions{ListOptions{Limit: 3}}) {
		if err != nil {
			last = err
			continue
		}
		got++
	}
	if got != 1 || !errors.Is(last, ErrSnapshotMoved) {
		t.Errorf("%d pages then %v; want 1 page then ErrSnapshotMoved", got, last)
	}
}
