package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/snapshot"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/uptrace/bun"
)

// DefaultRedisURL is used when SVC_TEST_REDIS_URL is unset (DESIGN §7).
const DefaultRedisURL = "redis://127.0.0.1:6379/0"

// RedisURL returns the test Redis, failing the test (never skipping) when it
// cannot be reached. With -short (make release-check) the test is skipped:
// make test runs it.
func RedisURL(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		// make release-check runs the short tests; make test runs them all.
		t.Skip("Redis tests do not run with -short")
	}
	u := os.Getenv("SVC_TEST_REDIS_URL")
	if u == "" {
		u = DefaultRedisURL
	}
	l, err := ratelimit.NewRedis(u, "probe", 2*time.Second)
	if err != nil {
		t.Fatalf("SVC_TEST_REDIS_URL: %v", err)
	}
	defer l.Close()
	if err := l.Ping(t.Context()); err != nil {
		t.Fatalf("Redis is required for this test and is not reachable at %s: %v\n"+
			"Start it with `scripts/services.sh` (make test does this), or set SVC_TEST_REDIS_URL.", u, err)
	}
	return u
}

// Namespace returns a fresh Redis key namespace for one test.
func Namespace() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "test-" + hex.EncodeToString(b[:])
}

// Migrate applies every migration (keys-admin's, then the api-server's).
func Migrate(ctx context.Context, db *bun.DB) error {
	_, err := store.Migrate(ctx, db)
	return err
}

// Canaries are stored in columns that must never leave the service; no
// response byte may contain one.
var Canaries = []string{
	"CANARY_accessTokenEncrypted_51c9",
	"CANARY_rawPayload_account_8e21",
	"CANARY_rawPayload_campaign_0b7d",
	"CANARY_rawPayload_insight_77aa",
	"987654321", // insights.conversions
	"canary-lead-email-3f02@example.com",
	"CANARY_lead_phone_6d1e",
	"u_canary_owner_a_2c4f",
	"u_canary_admin_a_9b13",
	"u_canary_member_a_47e0",
	"u_canary_owner_b_d5a8",
}

// Users of the fixture.
const (
	OwnerA  = "u_canary_owner_a_2c4f"
	AdminA  = "u_canary_admin_a_9b13"
	MemberA = "u_canary_member_a_47e0"
	OwnerB  = "u_canary_owner_b_d5a8"
)

// Fixture returns the fixture snapshot document as JSON, with insight dates
// relative to today (UTC): two organizations, accounts in EUR, USD and GBP,
// campaigns, account- and campaign-level insights for the last 5 days, and
// rows whose purchase measurement is unavailable although purchase values
// are stored.
func Fixture(today time.Time) string {
	d := func(n int) string { return today.AddDate(0, 0, -n).Format(time.DateOnly) }
	var ins []string
	add := func(id, acct, cmp, date, pm, purchases string) {
		c := "null"
		if cmp != "" {
			c = `"` + cmp + `"`
		}
		ins = append(ins, fmt.Sprintf(`{"id":%q,"accountId":%q,"campaignId":%s,"date":%q,
			"attributionWindow":"7d_click_1d_view","purchaseMeasurement":%q,"spend":"12.50","ctr":"1.20",
			"cpc":"0.40","cpm":"6.10","impressions":2049,"reach":1800,"clicks":31,%s,"conversions":987654321,
			"syncedAt":"2026-11-20T06:00:00Z","rawPayload":{"x":"CANARY_rawPayload_insight_77aa"}}`,
			id, acct, c, date, pm, purchases))
	}
	for i := range 5 {
		add(fmt.Sprintf("ins_a1_acct_%d", i), "acc_a1", "", d(i), "reported_purchase_value", `"purchases":2,"purchaseValue":80.5,"roas":6.44`)
		add(fmt.Sprintf("ins_a1_cmp_%d", i), "acc_a1", "cmp_a1", d(i), "unavailable", `"purchases":3,"purchaseValue":99.9,"roas":7.7`)
		add(fmt.Sprintf("ins_a2_acct_%d", i), "acc_a2", "", d(i), "reported_purchase_count", `"purchases":1,"purchaseValue":null,"roas":null`)
		add(fmt.Sprintf("ins_b1_acct_%d", i), "acc_b1", "", d(i), "reported_purchase_value", `"purchases":4,"purchaseValue":10,"roas":1.5`)
		add(fmt.Sprintf("ins_b1_cmp_%d", i), "acc_b1", "cmp_b1", d(i), "reported_purchase_value", `"purchases":4,"purchaseValue":10,"roas":1.5`)
	}
	return `{
  "organizations": [
    {"id":"org_a","name":"Acme","subscriptionStatus":"active","trialEndsAt":null,"members":[
      {"userId":"` + OwnerA + `","role":"owner"},
      {"userId":"` + AdminA + `","role":"admin"},
      {"userId":"` + MemberA + `","role":"member"}]},
    {"id":"org_b","name":"Beta","subscriptionStatus":"active","trialEndsAt":null,"members":[
      {"userId":"` + OwnerB + `","role":"owner"}]}
  ],
  "accounts": [
    {"id":"acc_a1","organizationId":"org_a","platformAdAccountId":"act_a1","accountName":"Acme EU","currency":"EUR",
     "timezone":"Europe/Berlin","isActive":true,"lastSyncAt":"2026-11-20T06:00:00Z",
     "accessTokenEncrypted":"CANARY_accessTokenEncrypted_51c9","rawPayload":{"t":"CANARY_rawPayload_account_8e21"}},
    {"id":"acc_a2","organizationId":"org_a","platformAdAccountId":"act_a2","accountName":"Acme US","currency":"USD",
     "timezone":"America/New_York","isActive":false,"lastSyncAt":null},
    {"id":"acc_b1","organizationId":"org_b","platformAdAccountId":"act_b1","accountName":"Beta UK","currency":"GBP",
     "timezone":"Europe/London","isActive":true,"lastSyncAt":"2026-11-19T06:00:00Z",
     "accessTokenEncrypted":"CANARY_accessTokenEncrypted_51c9"}
  ],
  "campaigns": [
    {"id":"cmp_a1","accountId":"acc_a1","name":"Winter sale","objective":"OUTCOME_SALES","status":"ACTIVE",
     "effectiveStatus":"ACTIVE","dailyBudget":"25.00","lifetimeBudget":null,"syncedAt":"2026-11-20T05:00:00Z",
     "rawPayload":{"c":"CANARY_rawPayload_campaign_0b7d"}},
    {"id":"cmp_a2","accountId":"acc_a2","name":"Brand","objective":"OUTCOME_AWARENESS","status":"PAUSED",
     "effectiveStatus":null,"dailyBudget":null,"lifetimeBudget":"1000.10","syncedAt":null},
    {"id":"cmp_b1","accountId":"acc_b1","name":"Beta only","objective":"OUTCOME_SALES","status":"ACTIVE",
     "effectiveStatus":"ACTIVE","dailyBudget":"5.5","lifetimeBudget":null,"syncedAt":"2026-11-19T05:00:00Z"}
  ],
  "insights": [` + strings.Join(ins, ",\n") + `],
  "leadContacts": [
    {"id":"lead_1","accountId":"acc_a1","email":"canary-lead-email-3f02@example.com","phone":"CANARY_lead_phone_6d1e"},
    {"id":"lead_2","accountId":"acc_b1","email":"canary-lead-email-3f02@example.com","phone":null}
  ]
}`
}

// Seed migrates db (Migrate) and imports the fixture (Load): the set-up of
// most tests that read the fixture.
func Seed(t testing.TB, db *bun.DB, today time.Time) {
	t.Helper()
	if err := Migrate(t.Context(), db); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	Load(t, db, today)
}

// Load imports the fixture into db.
func Load(t testing.TB, db *bun.DB, today time.Time) {
	t.Helper()
	doc, err := snapshot.Parse(strings.NewReader(Fixture(today)))
	if err != nil {
		t.Fatalf("parse fixture: %v", err)
	}
	if _, err := snapshot.Import(t.Context(), db, doc, time.Now()); err != nil {
		t.Fatalf("import fixture: %v", err)
	}
}

// Proxy is a TCP proxy in front of Redis that a test can break: Up forwards,
// Down refuses connections (closes them at once), Hang accepts and never
// answers.
type Proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	m     string
	conns []net.Conn
}

// Addr is the proxy's address.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// NewProxy starts a proxy to target (host:port) in mode "up".
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, target: target, m: "up"}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			switch p.m {
			case "down":
				c.Close()
			case "hang":
				p.conns = append(p.conns, c) // never read, never answered
			default:
				p.conns = append(p.conns, c)
				go p.forward(c)
			}
			p.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		p.Set("down")
	})
	return p
}

// Set switches the mode ("up", "down", "hang"), dropping every open
// connection so that pooled clients see the change at once.
func (p *Proxy) Set(mode string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.m = mode
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *Proxy) forward(c net.Conn) {
	defer c.Close()
	u, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer u.Close()
	done := make(chan struct{}, 2)
	go func() { copyConn(u, c); done <- struct{}{} }()
	go func() { copyConn(c, u); done <- struct{}{} }()
	<-done
}

func copyConn(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
