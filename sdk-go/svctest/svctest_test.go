package svctest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	svc "github.com/adsnap/svc/sdk-go"
)

func TestAPI(t *testing.T) {
	t.Parallel()
	api := &API{
		Key:      "k",
		Scopes:   []string{"accounts:read", "insights:read"},
		Accounts: []Row{{"a1", `{"id":"a1"}`}, {"a2", `{"id":"a2"}`}, {"a3", `{"id":"a3"}`}},
		Insights: []Row{{"a1", `{"id":"i1"}`}, {"a2", `{"id":"i2"}`}},
		DataAsOf: "2026-11-20T06:00:00Z",
		Now:      func() time.Time { return time.Date(2026, 11, 20, 23, 0, 0, 0, time.UTC) },
	}
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	tests := []struct {
		path, key string
		status    int
		messages  []string
		ids       []string
		next      any
	}{
		{"/x/api/v1/developer/accounts?limit=2", "k", 200, nil, []string{"a1", "a2"}, 2.0},
		{"/api/v1/developer/accounts?offset=2", "k", 200, nil, []string{"a3"}, nil},
		{"/api/v1/developer/insights?accountId=a2", "k", 200, nil, []string{"i2"}, nil},
		{"/api/v1/developer/accounts", "other", 401, []string{MessageUnauthorized}, nil, nil},
		{"/api/v1/developer/campaigns", "k", 403, []string{MessageMissingScope("campaigns:read")}, nil, nil},
		{"/api/v1/developer/nope", "k", 404, []string{MessageNoEndpoint}, nil, nil},
		{"/api/v1/developer/accounts?accountId=zz", "k", 404, []string{MessageAccountNotFound}, nil, nil},
		{"/api/v1/developer/accounts?limit=0&foo=1&from=2026-01-01", "k", 400, []string{
			`unknown query parameter "foo" (allowed: limit, offset, accountId)`,
			`unknown query parameter "from" (allowed: limit, offset, accountId)`,
			"limit must be between 1 and 100, got 0"}, nil, nil},
		{"/api/v1/developer/insights?limit=x&from=2026-11-21", "k", 400, []string{
			"limit must be an integer between 1 and 100, in plain digits (no sign, no leading zero)", "from must not be in the future (today is 2026-11-20 UTC)"}, nil, nil},
		{"/api/v1/developer/insights?from=2026-02-30", "k", 400, []string{"from must be a date YYYY-MM-DD (UTC)"}, nil, nil},
		{"/api/v1/developer/insights?from=2026-08-22", "k", 400, []string{
			"the range from 2026-08-22 to 2026-11-20 covers 91 days; at most 90 are allowed"}, nil, nil},
		{"/api/v1/developer/insights?from=2026-08-23", "k", 200, nil, []string{"i1", "i2"}, nil},
		{"/api/v1/developer/insights?to=2026-11-01&from=2026-11-02", "k", 400, []string{"from must not be after to"}, nil, nil},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+tt.path, nil)
		req.Header.Set("Authorization", "Bearer "+tt.key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Message []string `json:"message"`
			Data    []struct {
				ID string `json:"id"`
			} `json:"data"`
			Meta map[string]any `json:"meta"`
		}
		var raw json.RawMessage
		_ = json.NewDecoder(resp.Body).Decode(&raw)
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("%s: status %d, want %d: %s", tt.path, resp.StatusCode, tt.status, raw)
			continue
		}
		if err := json.Unmarshal(raw, &body); err != nil {
			// a single message is a string
			var one struct {
				Message string `json:"message"`
			}
			if json.Unmarshal(raw, &one) != nil {
				t.Fatalf("%s: %s", tt.path, raw)
			}
			body.Message = []string{one.Message}
		}
		if !slices.Equal(body.Message, tt.messages) {
			t.Errorf("%s: messages %q, want %q", tt.path, body.Message, tt.messages)
		}
		if tt.status != 200 {
			continue
		}
		var ids []string
		for _, d := range body.Data {
			ids = append(ids, d.ID)
		}
		if !slices.Equal(ids, tt.ids) || body.Meta["nextOffset"] != tt.next || body.Meta["note"] != Note {
			t.Errorf("%s: ids %v meta %v, want %v next %v", tt.path, ids, body.Meta, tt.ids, tt.next)
		}
	}
}

func TestSummary(t *testing.T) {
	t.Parallel()
	row := func(campaign, date, measurement, currency, spend string, imp, clicks int, purchases, value string) string {
		return `{"id":"i","platformAdAccountId":"p","attributionWindow":"w","campaignId":` + campaign + `,"date":"` + date + `T00:00:00Z",` +
			`"syncedAt":null,"account":{"currency":"` + currency + `","timezone":"UTC"},"purchaseMeasurement":"` + measurement + `",` +
			`"spend":"` + spend + `","ctr":"0","cpc":"0","cpm":"0","impressions":` + strconv.Itoa(imp) + `,"reach":1,"clicks":` + strconv.Itoa(clicks) +
			`,"purchases":` + purchases + `,"purchaseValue":` + value + `,"roas":null}`
	}
	api := &API{Key: "k", DataAsOf: "2026-11-20T06:00:00Z", Now: func() time.Time { return time.Date(2026, 11, 20, 23, 0, 0, 0, time.UTC) },
		Accounts: []Row{{"a1", `{"id":"a1"}`}, {"a2", `{"id":"a2"}`}},
		Insights: []Row{
			{"a1", row("null", "2026-11-16", "reported_purchase_value", "EUR", "10.50", 1000, 20, "2", "30.25")}, // a Monday
			{"a1", row("null", "2026-11-15", "unavailable", "EUR", "4.5", 0, 0, "null", "null")},
			{"a1", row(`"c1"`, "2026-11-16", "reported_purchase_count", "EUR", "3", 500, 5, "1", "null")},
			{"a2", row("null", "2026-10-31", "reported_purchase_value", "JPY", "7421", 10002, 139, "3", "5000")},
			{"a2", row("null", "2026-11-01", "unavailable", "JPY", "100", 98, 1, "null", "null")},
		}}
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	get := func(query string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/developer/insights/summary?"+query, nil)
		req.Header.Set("Authorization", "Bearer k")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct {
			Data    json.RawMessage `json:"data"`
			Message json.RawMessage `json:"message"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		if resp.StatusCode != http.StatusOK {
			return resp.StatusCode, string(body.Message)
		}
		return resp.StatusCode, string(body.Data)
	}
	group := func(currency, account, campaign, start, end string, rows, days int, spend string, imp, clicks int, ctr, cpc, cpm string,
		pr int, purchases string, vr int, value, roas string) string {
		q := func(s string) string {
			if s == "" {
				return "null"
			}
			return strconv.Quote(s)
		}
		level := "account"
		if campaign != "" {
			level = "campaign"
		}
		return fmt.Sprintf(`{"level":%q,"currency":%q,"accountId":%s,"campaignId":%s,"periodStart":%s,"periodEnd":%s,"rows":%d,"days":%d,`+
			`"spend":%q,"impressions":%d,"clicks":%d,"ctr":%s,"cpc":%s,"cpm":%s,"purchaseRows":%d,"purchases":%s,`+
			`"purchaseValueRows":%d,"purchaseValue":%s,"roas":%s}`,
			level, currency, q(account), q(campaign), q(start), q(end), rows, days, spend, imp, clicks, q(ctr), q(cpc), q(cpm),
			pr, q(purchases), vr, q(value), q(roas))
	}
	eurTotal := group("EUR", "", "", "", "", 2, 2, "15.00", 1000, 20, "2.0000", "0.7500", "15.0000", 1, "2", 1, "30.25", "2.8810")
	jpyTotal := group("JPY", "", "", "", "", 2, 2, "7521", 10100, 140, "1.3861", "53.7214", "744.6535", 1, "3", 1, "5000", "0.6738")
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"level=account", []string{eurTotal, jpyTotal}},
		{"level=account&groupBy=total&limit=1&offset=1", []string{jpyTotal}},
		{"level=account&groupBy=week", []string{
			group("EUR", "", "", "2026-11-09", "2026-11-15", 1, 1, "4.5", 0, 0, "", "", "", 0, "", 0, "", ""),
			group("EUR", "", "", "2026-11-16", "2026-11-22", 1, 1, "10.50", 1000, 20, "2.0000", "0.5250", "10.5000", 1, "2", 1, "30.25", "2.8810"),
			strings.Replace(strings.Replace(jpyTotal, `"periodStart":null`, `"periodStart":"2026-10-26"`, 1), `"periodEnd":null`, `"periodEnd":"2026-11-01"`, 1),
		}},
		{"level=account&groupBy=month&accountId=a2", []string{
			group("JPY", "", "", "2026-10-01", "2026-10-31", 1, 1, "7421", 10002, 139, "1.3897", "53.3885", "741.9516", 1, "3", 1, "5000", "0.6738"),
			group("JPY", "", "", "2026-11-01", "2026-11-30", 1, 1, "100", 98, 1, "1.0204", "100.0000", "1020.4082", 0, "", 0, "", ""),
		}},
		{"level=campaign&groupBy=campaign", []string{
			strings.TrimSuffix(group("EUR", "a1", "c1", "", "", 1, 1, "3", 500, 5, "1.0000", "0.6000", "6.0000", 1, "1", 0, "", ""), "}") +
				`,"accountName":"","campaignName":"","status":"INACTIVE"}`,
		}},
		{"level=campaign&groupBy=account&accountId=a2", nil},
	} {
		status, data := get(tc.query)
		want := "[" + strings.Join(tc.want, ",") + "]"
		if status != http.StatusOK || data != want {
			t.Errorf("%s: %d\n got %s\nwant %s", tc.query, status, data, want)
		}
	}
	for query, want := range map[string]string{
		"":                                 `["` + MessageLevelRequired + `"]`,
		"level=both&groupBy=year":          `["` + MessageLevelInvalid + `","` + MessageGroupByInvalid + `"]`,
		"level=account&groupBy=campaign":   `["` + MessageGroupByCampaignLevel + `"]`,
		"level=account&foo=1&from=2026-13": `["unknown query parameter \"foo\" (allowed: limit, offset, accountId, from, to, level, groupBy, sort, top, compareFrom, compareTo, status, having)","from must be a date YYYY-MM-DD (UTC)"]`,
	} {
		if status, got := get(query); status != http.StatusBadRequest || got != want {
			t.Errorf("%q: %d %s, want 400 %s", query, status, got, want)
		}
	}
	api.NoSummary = true
	if status, got := get("level=account"); status != http.StatusNotFound || got != strconv.Quote(MessageNoEndpoint) {
		t.Errorf("NoSummary: %d %s", status, got)
	}
}

// TestMakeKey: the keys MakeKey makes pass the SDK's check (which e2e holds
// to svc-api's), one of them is the key computed once and hard-coded in the
// SDK's tests, any one-character change fails the check, and a random part
// of the wrong length or alphabet panics.
func TestMakeKey(t *testing.T) {
	t.Parallel()
	if got, want := MakeKey(strings.Repeat("0", 37)), "svc_live_00000000000000000000000000000000000001w1XY4"; got != want {
		t.Errorf("MakeKey(37 zeros) = %q, want %q", got, want)
	}
	for _, random := range []string{strings.Repeat("0", 37), "0123456789abcdefghijklmnopqrstuvwxyzA", strings.Repeat("Zz9", 12) + "Q"} {
		key := MakeKey(random)
		if err := svc.ValidateAPIKey(key); err != nil {
			t.Errorf("MakeKey(%q) = %q: %v", random, key, err)
		}
		for i := len("svc_live_"); i < len(key); i++ {
			c := byte('A')
			if key[i] == 'A' {
				c = 'B'
			}
			bad := key[:i] + string(c) + key[i+1:]
			if svc.ValidateAPIKey(bad) == nil {
				t.Errorf("%q (character %d changed) passes the check", bad, i)
			}
		}
	}
	for _, random := range []string{"", strings.Repeat("0", 36), strings.Repeat("0", 38), strings.Repeat("0", 36) + "-"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("MakeKey(%q) did not panic", random)
				}
			}()
			MakeKey(random)
		}()
	}
}
