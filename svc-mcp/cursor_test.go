package svcmcp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	svc "github.com/adsnap/svc/sdk-go"
)

// pagedAccounts serves n accounts, paged by limit and offset as the API
// does.
func pagedAccounts(t *testing.T, n int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		limit, _ := strconv.Atoi(q.Get("limit"))
		offset, _ := strconv.Atoi(q.Get("offset"))
		var data []string
		for i := offset; i < min(offset+limit, n); i++ {
			data = append(data, fmt.Sprintf(`{"id":"acc_%04d","accountName":"A","currency":"EUR","timezone":"UTC","isActive":true,"lastSyncAt":null}`, i))
		}
		next := "null"
		if offset+limit < n {
			next = strconv.Itoa(offset + limit)
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"data":[%s],"meta":{"source":"stored_snapshot","liveMetaRequest":false,"limit":%d,"offset":%d,"nextOffset":%s,"returned":%d,"generatedAt":null,"dataAsOf":"2026-11-20T06:00:00Z","note":"n"}}`,
			strings.Join(data, ","), limit, offset, next, len(data))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestCursorReadsEveryRowOnce(t *testing.T) {
	t.Parallel()
	srv := pagedAccounts(t, 250)
	cs := connect(t, WithSiteURL(srv.URL), WithSDKOptions(svc.WithAPIKey(testKey), svc.WithRetryBackoff(time.Millisecond)))
	seen := map[string]bool{}
	args := map[string]any{"limit": 90}
	calls := 0
	for {
		calls++
		res := call(t, cs, "svc_accounts", args)
		if res.IsError {
			t.Fatalf("call %d: %s", calls, text(t, res))
		}
		sc := structured(t, res)
		for _, row := range rowsOf(t, sc) {
			id := row["id"].(string)
			if seen[id] {
				t.Fatalf("row %s twice", id)
			}
			seen[id] = true
		}
		meta := sc["meta"].(map[string]any)
		if meta["offset"] != float64(90*(calls-1)) || meta["limit"] != 90.0 {
			t.Errorf("call %d: meta %v", calls, meta)
		}
		if sc["complete"] == true {
			if sc["cursor"] != nil || calls != 3 || meta["nextOffset"] != nil {
				t.Errorf("complete after %d calls with cursor %v, meta %v; want 3 calls and no cursor", calls, sc["cursor"], meta)
			}
			break
		}
		cursor, ok := sc["cursor"].(string)
		if !ok || cursor == "" || !strings.Contains(text(t, res), "NOT complete") {
			t.Fatalf("call %d: incomplete without a cursor: %v", calls, sc)
		}
		args = map[string]any{"cursor": cursor, "limit": 90}
		if calls > 5 {
			t.Fatal("no end")
		}
	}
	if len(seen) != 250 {
		t.Errorf("%d rows, want 250", len(seen))
	}
	// The finished cursor is gone; a cursor with filters is refused.
	res := call(t, cs, "svc_accounts", args)
	if !res.IsError || !strings.Contains(text(t, res), "call svc_accounts again without cursor") {
		t.Errorf("finished cursor: %s", text(t, res))
	}
	res = call(t, cs, "svc_accounts", map[string]any{"cursor": "c1.x", "accountId": "acc_1"})
	if !res.IsError || !strings.Contains(text(t, res), "accountId cannot be given with cursor") {
		t.Errorf("cursor with accountId: %s", text(t, res))
	}
	res = call(t, cs, "svc_campaigns", map[string]any{"cursor": "c1.x"})
	if !res.IsError || !strings.Contains(text(t, res), "unknown") {
		t.Errorf("unknown cursor: %s", text(t, res))
	}
}

func TestCursorsExpireAndAreBounded(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	c := newCursors(func() time.Time { return now })
	var stopped atomic.Int32 // drop closes listings on goroutines of their own
	newListing := func() *listing {
		return &listing{tool: "svc_accounts", stop: func() { stopped.Add(1) }, next: func() (any, error, bool) { return nil, nil, false }}
	}
	first := c.put(newListing())
	for range MaxCursors {
		c.put(newListing())
	}
	if _, err := c.get(first, "svc_accounts"); err == nil {
		t.Error("the oldest cursor survived past MaxCursors")
	}
	last := c.put(newListing())
	if _, err := c.get(last, "svc_campaigns"); err == nil {
		t.Error("a cursor of another tool was accepted")
	}
	now = now.Add(CursorIdleTimeout + time.Second)
	if _, err := c.get(last, "svc_accounts"); err == nil {
		t.Error("an idle cursor did not expire")
	}
	b, _ := json.Marshal(first)
	if len(b) < 20 {
		t.Errorf("cursor %s is short", b)
	}
	// The two evicted listings and the expired one are stopped.
	for deadline := time.Now().Add(5 * time.Second); stopped.Load() < 3 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if n := stopped.Load(); n < 3 {
		t.Errorf("%d listings stopped, want the 2 evicted and the expired one", n)
	}
}
