package svc

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// fakeRow is a row of the fake API: an account, a campaign or an insight.
type fakeRow struct {
	ID, Account string
	Date        Date   // insights only
	Day         string // Date as YYYY-MM-DD, for fast comparisons
}

// fakeAPI serves /accounts, /campaigns and /insights from rows the way the
// service does: filtered by accountId (and from/to), ordered by id (insights:
// date descending, then id), limit+1 rows read, nextOffset only up to
// MaxOffset.
type fakeAPI struct {
	t                             *testing.T
	accounts, campaigns, insights []fakeRow
	mu                            sync.Mutex
	sorted                        bool
	requests                      []string
}

func (f *fakeAPI) handler(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f.mu.Lock()
	f.requests = append(f.requests, r.URL.Path+"?"+r.URL.RawQuery)
	f.mu.Unlock()
	limit, offset := 50, 0
	if v := q.Get("limit"); v != "" {
		limit, _ = strconv.Atoi(v)
	}
	if v := q.Get("offset"); v != "" {
		offset, _ = strconv.Atoi(v)
	}
	if limit < 1 || limit > MaxLimit || offset < 0 || offset > MaxOffset {
		f.t.Errorf("bad paging %s", r.URL.RawQuery)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	var src []fakeRow
	switch r.URL.Path {
	case "/accounts":
		src = f.accounts
	case "/campaigns":
		src = f.campaigns
	case "/insights":
		src = f.insights
	}
	acc := q.Get("accountId")
	from, _ := ParseDate(q.Get("from"))
	to, _ := ParseDate(q.Get("to"))
	f.mu.Lock()
	if !f.sorted {
		for _, s := range [][]fakeRow{f.accounts, f.campaigns} {
			slices.SortFunc(s, func(a, b fakeRow) int { return cmp.Compare(a.ID, b.ID) })
		}
		slices.SortFunc(f.insights, func(a, b fakeRow) int {
			return cmp.Or(-cmp.Compare(a.Day, b.Day), cmp.Compare(a.ID, b.ID))
		})
		f.sorted = true
	}
	f.mu.Unlock()
	fromS, toS := from.String(), to.String()
	// The matching rows from offset on, limit+1 at most (without copying
	// every matching row: tests read tens of thousands of rows page by page).
	page := make([]*fakeRow, 0, limit+1)
	skip := offset
	for i := range src {
		x := &src[i]
		if acc != "" && x.Account != acc && !(r.URL.Path == "/accounts" && x.ID == acc) {
			continue
		}
		if r.URL.Path == "/insights" && (x.Day < fromS || x.Day > toS) {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		if page = append(page, x); len(page) == limit+1 {
			break
		}
	}
	more := len(page) > limit
	if more {
		page = page[:limit]
	}
	var next *int
	if n := offset + len(page); more && n <= MaxOffset {
		next = &n
	}
	var b strings.Builder
	b.WriteString(`{"data":[`)
	for i, x := range page {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id":"` + x.ID + `","platformAdAccountId":"` + x.Account + `"`)
		if r.URL.Path == "/insights" {
			b.WriteString(`,"date":"` + x.Day + `"`)
		}
		b.WriteByte('}')
	}
	nextJSON, _ := json.Marshal(next)
	fmt.Fprintf(&b, `],"meta":{"source":"stored_snapshot","limit":%d,"offset":%d,"nextOffset":%s,"returned":%d,"dataAsOf":"2026-11-20T06:00:00Z"}}`,
		limit, offset, nextJSON, len(page))
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, b.String())
}

// client returns a client whose requests f answers in memory (no network,
// so that tests reading tens of thousands of rows stay fast).
func (f *fakeAPI) client(t *testing.T) *Client {
	return newFakeClient(t, func(r *http.Request) (*http.Response, error) {
		r2 := r.Clone(r.Context())
		r2.URL.Path = strings.TrimPrefix(r.URL.Path, APIPath)
		rec := httptest.NewRecorder()
		f.handler(rec, r2)
		return response(r, rec.Code, rec.Header(), rec.Body.String()), nil
	}, withRetryBase(time.Millisecond))
}

// insightsOn returns n insight rows of account acc on day d.
func insightsOn(acc string, d Date, n int) []fakeRow {
	rows := make([]fakeRow, n)
	for i := range rows {
		rows[i] = fakeRow{ID: fmt.Sprintf("ins_%s_%s_%05d", d, acc, i), Account: acc, Date: d, Day: d.String()}
	}
	return rows
}

// collect ranges over seq and returns the ids and the errors.
func collect[T any](seq func(func(T, error) bool), id func(T) string) ([]string, []error) {
	var ids []string
	var errs []error
	for x, err := range seq {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ids = append(ids, id(x))
	}
	return ids, errs
}

// wantOrder returns the ids of rows in the service's order.
func wantOrder(rows []fakeRow, insights bool) []string {
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b fakeRow) int {
		if insights {
			return cmp.Or(-cmp.Compare(a.Day, b.Day), cmp.Compare(a.ID, b.ID))
		}
		return cmp.Compare(a.ID, b.ID)
	})
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return ids
}

func insightID(i Insight) string   { return i.ID }
func campaignID(c Campaign) string { return c.ID }
func accountID(a Account) string   { return a.ID }

func TestInsightsAllSplitsTheDateRangePastTheOffsetLimit(t *testing.T) {
	t.Parallel()
	to := DateOf(testToday)
	f := &fakeAPI{t: t}
	// 30 days, 12,315 rows: about 410 a day over two accounts, so a single
	// listing stops at 10,100 rows, in the middle of a day.
	for d := range 30 {
		for _, acc := range []string{"acc_a", "acc_b"} {
			f.insights = append(f.insights, insightsOn(acc, to.AddDays(-d), 205+d%2)...)
		}
	}
	c := f.client(t)
	got, errs := collect(c.Insights.All(t.Context(), nil), insightID)
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	want := wantOrder(f.insights, true)
	if !slices.Equal(got, want) {
		t.Fatalf("got %d rows, want the %d rows in the documented order (first difference at %d)", len(got), len(want), firstDiff(got, want))
	}
	for _, r := range f.requests {
		if q := r; !strings.Contains(q, "limit=100") {
			t.Errorf("request %s does not ask for 100 rows", q)
		}
	}
	t.Logf("%d rows in %d requests", len(got), len(f.requests))
	if len(f.requests) > len(want)/100+12 {
		t.Errorf("%d requests for %d rows: the split re-reads too much", len(f.requests), len(want))
	}
}

func TestInsightsAllReadsADayPastTheLimitAccountByAccount(t *testing.T) {
	t.Parallel()
	day := DateOf(testToday).AddDays(-3)
	f := &fakeAPI{t: t, accounts: []fakeRow{{ID: "acc_a"}, {ID: "acc_b"}, {ID: "acc_c"}}}
	f.insights = append(f.insights, insightsOn("acc_a", day.AddDays(1), 40)...)
	f.insights = append(f.insights, insightsOn("acc_a", day, 6000)...)
	f.insights = append(f.insights, insightsOn("acc_b", day, 5000)...)
	f.insights = append(f.insights, insightsOn("acc_c", day.AddDays(-1), 70)...)
	c := f.client(t)
	got, errs := collect(c.Insights.All(t.Context(), nil), insightID)
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	// The day past the limit comes account by account (then id); the days
	// around it in the documented order.
	var want []string
	want = append(want, wantOrder(insightsOn("acc_a", day.AddDays(1), 40), true)...)
	want = append(want, wantOrder(insightsOn("acc_a", day, 6000), true)...)
	want = append(want, wantOrder(insightsOn("acc_b", day, 5000), true)...)
	want = append(want, wantOrder(insightsOn("acc_c", day.AddDays(-1), 70), true)...)
	if !slices.Equal(got, want) {
		t.Fatalf("got %d rows, want %d (first difference at %d)", len(got), len(want), firstDiff(got, want))
	}
}

// TestAllRawPairsEachRowWithItsJSON: AllRaw yields the rows of All (in the
// order the tests above check), each with the row exactly as the service sent it, also for the rows held back
// and read again when the date range is narrowed past the offset limit and
// for a day read account by account.
func TestAllRawPairsEachRowWithItsJSON(t *testing.T) {
	t.Parallel()
	to := DateOf(testToday)
	split := &fakeAPI{t: t}
	for d := range 30 {
		for _, acc := range []string{"acc_a", "acc_b"} {
			split.insights = append(split.insights, insightsOn(acc, to.AddDays(-d), 205+d%2)...)
		}
	}
	day := to.AddDays(-3)
	byAccount := &fakeAPI{t: t, accounts: []fakeRow{{ID: "acc_a"}, {ID: "acc_b"}}}
	byAccount.insights = append(byAccount.insights, insightsOn("acc_a", day.AddDays(1), 40)...)
	byAccount.insights = append(byAccount.insights, insightsOn("acc_a", day, 6000)...)
	byAccount.insights = append(byAccount.insights, insightsOn("acc_b", day, 5000)...)
	var byAccountOrder []string
	byAccountOrder = append(byAccountOrder, wantOrder(insightsOn("acc_a", day.AddDays(1), 40), true)...)
	byAccountOrder = append(byAccountOrder, wantOrder(insightsOn("acc_a", day, 6000), true)...)
	byAccountOrder = append(byAccountOrder, wantOrder(insightsOn("acc_b", day, 5000), true)...)
	for _, tt := range []struct {
		name string
		f    *fakeAPI
		want []string
	}{
		{"date split", split, wantOrder(split.insights, true)},
		{"day by account", byAccount, byAccountOrder},
	} {
		name, c, want := tt.name, tt.f.client(t), tt.want
		var got []string
		for row, err := range c.Insights.AllRaw(t.Context(), nil) {
			if err != nil {
				t.Fatalf("%s: AllRaw: %v", name, err)
			}
			var sent struct {
				ID   string `json:"id"`
				Date Date   `json:"date"`
			}
			if err := json.Unmarshal(row.Raw, &sent); err != nil {
				t.Fatalf("%s: row %d: raw %q: %v", name, len(got), row.Raw, err)
			}
			if sent.ID != row.Value.ID || row.Value.Date == nil || sent.Date != *row.Value.Date {
				t.Fatalf("%s: row %d: raw %s is not the row of %+v", name, len(got), row.Raw, row.Value)
			}
			got = append(got, row.Value.ID)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: AllRaw gave %d rows, want %d in All's order (first difference at %d)", name, len(got), len(want), firstDiff(got, want))
		}
	}
}

func TestInsightsAllIncompleteForOneAccountDayPastTheLimit(t *testing.T) {
	t.Parallel()
	day := DateOf(testToday).AddDays(-1)
	f := &fakeAPI{t: t, accounts: []fakeRow{{ID: "acc_a"}}}
	f.insights = append(f.insights, insightsOn("acc_a", day.AddDays(1), 30)...)
	f.insights = append(f.insights, insightsOn("acc_a", day, MaxOffset+MaxLimit+1)...)
	c := f.client(t)
	for _, opts := range []*InsightListOptions{nil, {ListOptions: ListOptions{AccountID: "acc_a"}}} {
		got, errs := collect(c.Insights.All(t.Context(), opts), insightID)
		if len(errs) != 1 || !errors.Is(errs[0], ErrIncomplete) {
			t.Fatalf("errors %v, want one ErrIncomplete", errs)
		}
		inc, ok := errors.AsType[*IncompleteError](errs[0])
		if !ok || inc.Rows != len(got) || len(got) < 30 {
			t.Errorf("IncompleteError %+v after %d rows; want Rows = the rows yielded, at least the 30 of the complete day", inc, len(got))
		}
		if seen := map[string]bool{}; true {
			for _, id := range got {
				if seen[id] {
					t.Fatalf("row %s twice", id)
				}
				seen[id] = true
			}
		}
		t.Logf("error: %v", errs[0])
	}
}

func TestCampaignsAllListsPerAccountPastTheLimit(t *testing.T) {
	t.Parallel()
	f := &fakeAPI{t: t, accounts: []fakeRow{{ID: "acc_a"}, {ID: "acc_b"}, {ID: "acc_c"}}}
	per := map[string]int{"acc_a": 4000, "acc_b": 4500, "acc_c": 3500}
	var want []string
	for _, acc := range []string{"acc_a", "acc_b", "acc_c"} {
		var rows []fakeRow
		for i := range per[acc] {
			// ids interleave across accounts, so that per-account order
			// differs from id order.
			rows = append(rows, fakeRow{ID: fmt.Sprintf("cmp_%05d_%s", i, acc), Account: acc})
		}
		f.campaigns = append(f.campaigns, rows...)
		want = append(want, wantOrder(rows, false)...)
	}
	c := f.client(t)
	got, errs := collect(c.Campaigns.All(t.Context(), nil), campaignID)
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %d campaigns, want %d account by account (first difference at %d)", len(got), len(want), firstDiff(got, want))
	}

	// Below the limit: one listing in id order, after one probe.
	small := &fakeAPI{t: t, campaigns: f.campaigns[:250]}
	c2 := small.client(t)
	got, errs = collect(c2.Campaigns.All(t.Context(), nil), campaignID)
	if len(errs) > 0 || !slices.Equal(got, wantOrder(small.campaigns, false)) {
		t.Errorf("small listing: %d rows, errors %v", len(got), errs)
	}
	if len(small.requests) != 4 {
		t.Errorf("small listing: requests %v, want the probe and three pages", small.requests)
	}
}

func TestCampaignsAndAccountsIncompleteWhenNoSplitHelps(t *testing.T) {
	t.Parallel()
	f := &fakeAPI{t: t}
	for i := range MaxOffset + MaxLimit + 5 {
		f.accounts = append(f.accounts, fakeRow{ID: fmt.Sprintf("acc_%05d", i)})
		f.campaigns = append(f.campaigns, fakeRow{ID: fmt.Sprintf("cmp_%05d", i), Account: "acc_00000"})
	}
	c := f.client(t)
	accounts, errs := collect(c.Accounts.All(t.Context(), nil), accountID)
	if inc, ok := errors.AsType[*IncompleteError](errors.Join(errs...)); !ok || inc.Rows != MaxOffset+MaxLimit || len(accounts) != inc.Rows {
		t.Errorf("accounts: %d rows, errors %v; want ErrIncomplete after 10100", len(accounts), errs)
	}
	campaigns, errs := collect(c.Campaigns.All(t.Context(), nil), campaignID)
	if len(errs) != 1 || !errors.Is(errs[0], ErrIncomplete) {
		t.Errorf("campaigns: %d rows, errors %v; want ErrIncomplete (one account past the limit)", len(campaigns), errs)
	}
	var pageErr error
	for _, err := range c.Accounts.Pages(t.Context(), nil) {
		pageErr = err
	}
	if !errors.Is(pageErr, ErrIncomplete) {
		t.Errorf("Pages ended with %v, want ErrIncomplete", pageErr)
	}
}

// gcraTransport is an in-memory API with the service's per-key limit:
// GCRA, quota per minute with a burst of quota, the RateLimit headers, and
// 429 with Retry-After 60 when refused.
type gcraTransport struct {
	quota   int
	tat     time.Time
	ok      int
	refused int
	pages   int
}

func (g *gcraTransport) roundTrip(r *http.Request) (*http.Response, error) {
	now := time.Now()
	interval := time.Minute / time.Duration(g.quota)
	tat := g.tat
	if tat.Before(now) {
		tat = now
	}
	newTAT := tat.Add(interval)
	diff := now.Sub(newTAT.Add(-time.Minute))
	h := http.Header{}
	h.Set("RateLimit-Policy", fmt.Sprintf(`"key";q=%d;w=60, "org";q=%d;w=60`, g.quota, 2*g.quota))
	if diff < 0 {
		g.refused++
		h.Set("RateLimit", fmt.Sprintf(`"key";r=0;t=%d`, int(tat.Sub(now).Seconds())+1))
		h.Set("Retry-After", "60")
		return response(r, http.StatusTooManyRequests, h, `{"statusCode":429,"message":"rate limited"}`), nil
	}
	g.tat = newTAT
	h.Set("RateLimit", fmt.Sprintf(`"key";r=%d;t=%d`, int(diff/interval), int(newTAT.Sub(now).Seconds())+1))
	offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
	next := "null"
	if offset+100 < g.pages*100 {
		next = strconv.Itoa(offset + 100)
	}
	g.ok++
	return response(r, http.StatusOK, h, fmt.Sprintf(`{"data":[{"id":"a%d"}],"meta":{"limit":100,"offset":%d,"nextOffset":%s,"returned":1,"dataAsOf":"s"}}`, offset, offset, next)), nil
}

func TestAllPacesWithinTheRateLimit(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		g := &gcraTransport{quota: 60, pages: 100}
		var paced, limited int
		c := newFakeClient(t, g.roundTrip, WithHooks(Hooks{OnWait: func(w Wait) {
			switch w.Reason {
			case WaitPacing:
				paced++
			case WaitRateLimited:
				limited++
			}
		}}))
		start := time.Now()
		n := 0
		for _, err := range c.Accounts.All(t.Context(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		took := time.Since(start)
		if n != 100 || g.refused != 0 || limited != 0 {
			t.Errorf("%d rows, %d answers 429 (%d waits for them); want 100 rows and no 429", n, g.refused, limited)
		}
		// 60 at once (the burst), then one a second: the 100th at 40 s.
		if took < 39*time.Second || took > 41*time.Second || paced != 40 {
			t.Errorf("took %s with %d paced waits, want about 40s and 40 waits", took, paced)
		}
	})
}

func TestAllWaitsOn429AndGoesOnFromWhereItWas(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var offsets []string
		calls := 0
		c := newFakeClient(t, func(r *http.Request) (*http.Response, error) {
			calls++
			offsets = append(offsets, r.URL.Query().Get("offset"))
			if calls == 3 { // the third page, once
				h := http.Header{"Retry-After": {"60"}}
				return response(r, http.StatusTooManyRequests, h, `{"statusCode":429,"message":"rate limited"}`), nil
			}
			off, _ := strconv.Atoi(r.URL.Query().Get("offset"))
			next := "null"
			if off < 300 {
				next = strconv.Itoa(off + 100)
			}
			return response(r, http.StatusOK, nil, fmt.Sprintf(`{"data":[{"id":"a%d"}],"meta":{"limit":100,"offset":%d,"nextOffset":%s,"returned":1,"dataAsOf":"s"}}`, off, off, next)), nil
		}, withJitter(2*time.Second))
		var waits []Wait
		c.cfg.hooks.OnWait = func(w Wait) { waits = append(waits, w) }
		start := time.Now()
		ids, errs := collect(c.Accounts.All(t.Context(), nil), accountID)
		if len(errs) > 0 || !slices.Equal(ids, []string{"a0", "a100", "a200", "a300"}) {
			t.Fatalf("rows %v, errors %v", ids, errs)
		}
		if !slices.Equal(offsets, []string{"", "100", "200", "200", "300"}) {
			t.Errorf("offsets %q: the 429 must be retried at the same offset", offsets)
		}
		if len(waits) != 1 || waits[0].Reason != WaitRateLimited || waits[0].Duration != 62*time.Second || time.Since(start) != 62*time.Second {
			t.Errorf("waits %+v after %s, want one of 62s (60 s + 2 s jitter)", waits, time.Since(start))
		}
	})
}

func TestRetriesTransientFailures(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		tests := []struct {
			name  string
			fail  func(*http.Request) (*http.Response, error)
			fails int
			ok    bool
			tries int
		}{
			{"503 twice", func(r *http.Request) (*http.Response, error) {
				return response(r, http.StatusServiceUnavailable, nil, `{"statusCode":503,"message":"unavailable"}`), nil
			}, 2, true, 3},
			{"502 always", func(r *http.Request) (*http.Response, error) {
				return response(r, http.StatusBadGateway, nil, `bad gateway`), nil
			}, 99, false, 3},
			{"connection reset once", func(r *http.Request) (*http.Response, error) {
				return nil, errors.New("read: connection reset by peer")
			}, 1, true, 2},
			{"400 is not retried", func(r *http.Request) (*http.Response, error) {
				return response(r, http.StatusBadRequest, nil, `{"statusCode":400,"message":"bad"}`), nil
			}, 99, false, 1},
		}
		for _, tt := range tests {
			tries := 0
			var waits []time.Duration
			c := newFakeClient(t, func(r *http.Request) (*http.Response, error) {
				tries++
				if tries <= tt.fails {
					return tt.fail(r)
				}
				return response(r, http.StatusOK, nil, `{"data":[],"meta":{"nextOffset":null}}`), nil
			}, WithHooks(Hooks{OnWait: func(w Wait) { waits = append(waits, w.Duration) }}))
			start := time.Now()
			_, err := c.Accounts.List(t.Context(), nil)
			if (err == nil) != tt.ok || tries != tt.tries {
				t.Errorf("%s: err %v after %d tries, want ok=%v after %d", tt.name, err, tries, tt.ok, tt.tries)
			}
			// Backoff: 0.5–1 s, then 1–2 s.
			for i, w := range waits {
				lo, hi := defaultRetryBase<<i/2, defaultRetryBase<<i
				if w < lo || w > hi {
					t.Errorf("%s: wait %d is %s, want %s to %s", tt.name, i, w, lo, hi)
				}
			}
			if len(waits) != tt.tries-1 || time.Since(start) != sum(waits) {
				t.Errorf("%s: waits %v in %s", tt.name, waits, time.Since(start))
			}
		}
	})
}

func sum(ds []time.Duration) time.Duration {
	var s time.Duration
	for _, d := range ds {
		s += d
	}
	return s
}

func TestResponseMetadata(t *testing.T) {
	t.Parallel()
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req_42")
		w.Header().Set("RateLimit-Policy", `"key";q=60;w=60, "org";q=120;w=60, "ip";q=180;w=60`)
		w.Header().Set("RateLimit", `"key";r=57;t=3, "org";r=110;t=5`)
		w.Header().Set(KeyExpiresHeader, "2026-11-25T10:00:00Z")
		jsonHandler(http.StatusOK, `{"data":[],"meta":{"nextOffset":null,"dataAsOf":"s"}}`)(w, r)
	})
	page, err := c.Accounts.List(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := &Response{
		StatusCode: 200, RequestID: "req_42",
		RateLimits: []RateLimit{
			{Bucket: "key", Quota: 60, Window: time.Minute, Remaining: 57, Reset: 3 * time.Second},
			{Bucket: "org", Quota: 120, Window: time.Minute, Remaining: 110, Reset: 5 * time.Second},
			{Bucket: "ip", Quota: 180, Window: time.Minute, Remaining: -1},
		},
		KeyExpiresAt: time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC),
		Meta:         &Meta{DataAsOf: "s"},
	}
	if d := diff(want, page.Response); d != "" {
		t.Errorf("Response mismatch (path: want, got):\n%s", d)
	}
	if got := (RateLimit{Quota: 60, Window: time.Minute}).Interval(); got != time.Second {
		t.Errorf("Interval = %s, want 1s", got)
	}
}

func TestParseRateLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		policy, current string
		want            []RateLimit
	}{
		{"", "", nil},
		{`"key";q=60;w=60`, `"key";r=0;t=1`, []RateLimit{{Bucket: "key", Quota: 60, Window: time.Minute, Remaining: 0, Reset: time.Second}}},
		// a token name, a string with a comma and an escaped quote, junk skipped
		{`default;q=10;w=1, "a,\"b";q=5;w=30, ;q=1, "x";w=5`, `"a,\"b";r=2`, []RateLimit{
			{Bucket: "default", Quota: 10, Window: time.Second, Remaining: -1},
			{Bucket: `a,"b`, Quota: 5, Window: 30 * time.Second, Remaining: 2},
		}},
		{``, `"only";r=3;t=9`, []RateLimit{{Bucket: "only", Remaining: 3, Reset: 9 * time.Second}}},
	}
	for _, tt := range tests {
		if d := diff(tt.want, parseRateLimits(tt.policy, tt.current)); d != "" {
			t.Errorf("parseRateLimits(%q, %q):\n%s", tt.policy, tt.current, d)
		}
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
