package store_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
)

// TestRoutedFallsBack: a replica that does not answer, and a "replica" that
// is not in recovery (the primary under another URL), are both skipped with
// the reason in Status and the logs, and the snapshot reads are served by
// the primary, with the same rows. (A real streaming replica, its lag and
// its loss mid-load are in e2e's scale group.)
func TestRoutedFallsBack(t *testing.T) {
	b := dbtest.Postgres(t)
	ctx := t.Context()
	testenv.Seed(t, b.DB, time.Now().UTC())
	primary, err := store.New(ctx, b.Handle)
	if err != nil {
		t.Fatal(err)
	}
	defer primary.Close()
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	down := "postgres://postgres:secret-pw@127.0.0.1:1/test?sslmode=disable"
	rt := store.NewRouted(ctx, primary, store.ReplicaOptions{URLs: []string{down, b.URL},
		CheckEvery: 50 * time.Millisecond, Deadline: 500 * time.Millisecond}, log)
	defer rt.Close()
	st := rt.Status()
	if len(st) != 2 || st[0].Healthy || st[0].Reason != "unreachable" || st[1].Healthy || !strings.Contains(st[1].Reason, "not in recovery") {
		t.Fatalf("status %+v", st)
	}
	if strings.Contains(st[0].Name, "secret-pw") {
		t.Fatalf("status shows the password: %+v", st[0])
	}
	want, wrows, err := primary.AccountsPage(ctx, "org_a", store.ListParams{Limit: 10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 4 {
		m, rows, err := rt.AccountsPage(ctx, "org_a", store.ListParams{Limit: 10}, nil)
		if err != nil || m != want || rows.Len() != wrows.Len() || rows.Len() == 0 {
			t.Fatalf("routed read: %v %+v %d rows, primary %+v %d rows", err, m, rows.Len(), want, wrows.Len())
		}
		rows.Release()
	}
	if err := rt.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	rt.Close() // the checks stop writing to logs
	if !strings.Contains(logs.String(), `"reason":"unreachable"`) || !strings.Contains(logs.String(), `"reason":"not a replica (not in recovery)"`) {
		t.Errorf("the logs do not say why the replicas are skipped:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), "secret-pw") {
		t.Fatal("a log line holds the replica's password")
	}
}
