package store_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/jackc/pgx/v5"
)

// echo is a Prelude that reads back its argument.
type echo struct {
	sql  string
	arg  string
	got  string
	none bool
}

func (e *echo) Query() (string, []any) { return e.sql, []any{e.arg} }
func (e *echo) Scan(row pgx.Row) error {
	err := row.Scan(&e.got)
	if errors.Is(err, pgx.ErrNoRows) {
		e.none = true
		return nil
	}
	return err
}

// TestPrelude: a Prelude goes in the page's round trip and is read before
// it; the page is the one read without it; a Prelude's failure is the
// call's; SQLite refuses one.
func TestPrelude(t *testing.T) {
	b := dbtest.Postgres(t)
	ctx := t.Context()
	if err := testenv.Migrate(ctx, b.DB); err != nil {
		t.Fatal(err)
	}
	today := time.Now().UTC()
	testenv.Load(t, b.DB, today)
	st, err := store.New(ctx, b.Handle)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p := store.ListParams{Limit: 3}
	wm, want, err := st.AccountsPage(ctx, "org_a", p, nil)
	if err != nil || want.Len() == 0 {
		t.Fatal(want, err)
	}
	for range 3 { // the statements are prepared on first use, then cached
		pre := &echo{sql: "SELECT $1::text", arg: "hello"}
		m, got, err := st.AccountsPage(ctx, "org_a", p, pre)
		if err != nil || pre.got != "hello" || m != wm || !reflect.DeepEqual(got.Rows(), want.Rows()) {
			t.Fatalf("with a prelude: %v %+v %+v %v", pre.got, m, got, err)
		}
	}
	pre := &echo{sql: "SELECT $1::text WHERE false", arg: "x"}
	if _, got, err := st.CampaignsPage(ctx, "org_a", p, pre); err != nil || !pre.none || got.Len() == 0 {
		t.Fatalf("a prelude without a row: %v %v %v", pre.none, got, err)
	}
	from, to := today.AddDate(0, 0, -89).Format(time.DateOnly), today.Format(time.DateOnly)
	pre = &echo{sql: "SELECT $1::text", arg: "ins"}
	if _, got, err := st.InsightsPage(ctx, "org_a", store.ListParams{Limit: 3, From: from, To: to}, pre); err != nil || pre.got != "ins" || got.Len() == 0 {
		t.Fatalf("insights with a prelude: %v %v %v", pre.got, got, err)
	}
	if _, _, err := st.AccountsPage(ctx, "org_a", p, &echo{sql: "SELECT (1/(length($1::text)-1))::text", arg: "x"}); err == nil {
		t.Fatal("a failing prelude: no error")
	}
	// The connection is usable afterwards.
	if _, got, err := st.AccountsPage(ctx, "org_a", p, nil); err != nil || !reflect.DeepEqual(got.Rows(), want.Rows()) {
		t.Fatal(got, err)
	}

	lite := dbtest.SQLite(t)
	if err := testenv.Migrate(ctx, lite.DB); err != nil {
		t.Fatal(err)
	}
	sl, err := store.New(ctx, lite.Handle)
	if err != nil {
		t.Fatal(err)
	}
	defer sl.Close()
	if _, _, err := sl.AccountsPage(ctx, "org_a", p, &echo{sql: "SELECT 1"}); err == nil {
		t.Fatal("SQLite accepted a prelude")
	}
}

// TestEmptyPageOneConnection: an empty page (its meta read by a second
// statement) with or without a Prelude uses the page's one connection: a
// store on a pool of one connection answers it, so a request in flight
// never holds two (the admission gate counts on one).
func TestEmptyPageOneConnection(t *testing.T) {
	b := dbtest.Postgres(t)
	ctx := t.Context()
	if err := testenv.Migrate(ctx, b.DB); err != nil {
		t.Fatal(err)
	}
	testenv.Load(t, b.DB, time.Now().UTC())
	h, err := database.Connect(ctx, b.URL, database.Options{MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	st, err := store.New(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p := store.ListParams{Limit: 3, AccountID: "acc_nope"}
	for _, pre := range []*echo{nil, {sql: "SELECT $1::text", arg: "empty"}} {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		var prelude store.Prelude
		if pre != nil {
			prelude = pre
		}
		m, got, err := st.AccountsPage(cctx, "org_a", p, prelude)
		cancel()
		if err != nil || m.AccountFound || got != nil && got.Len() != 0 {
			t.Fatalf("prelude %v: %+v %v %v", pre != nil, m, got, err)
		}
		if pre != nil && pre.got != "empty" {
			t.Fatalf("prelude not read: %q", pre.got)
		}
		got.Release()
	}
	// The connection is usable afterwards: a page with rows.
	if _, got, err := st.AccountsPage(ctx, "org_a", store.ListParams{Limit: 3}, &echo{sql: "SELECT $1::text", arg: "x"}); err != nil || got.Len() == 0 {
		t.Fatal(got, err)
	}
}
