//go:build failover

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/e2e/internal/harness"
	"github.com/jackc/pgx/v5"
)

const (
	// replicaMaxLag is the read replicas' --database-replica-max-lag here.
	replicaMaxLag = 2 * time.Second
	// replicaBackWithin: a caught-up read replica is back in use within the
	// lag check's interval (1 s), seen through /readyz, which answers from
	// a check at most 1 s old, with 0.5 s for a loaded machine.
	replicaBackWithin = 2500 * time.Millisecond
	// promotionServed: served again within this of a promotion (issue 36).
	promotionServed = 2 * time.Second
)

// testFailoverReadReplica: the read replica killed (immediate shutdown)
// under load and started again once the primary has been idle for longer
// than the max lag, as a quiet primary is. Figures: the failed requests
// (reads fall back to the primary), when the replica is caught up (it has
// replayed the primary's last position and streams), and when each svc-api
// replica uses it again (/readyz). Targets: no failed request; a caught-up
// replica back in use within the lag check's interval (on 95c3747 it
// stayed out as "lagging" until the next write on the primary).
func testFailoverReadReplica(t *testing.T, f *failover) {
	rs := f.startReplicas(t, 2, append([]string{"SVC_DATABASE_URL=" + f.pg.PrimaryURL,
		"SVC_DATABASE_REPLICA_URLS=" + f.pg.ReplicaURL, "SVC_DATABASE_REPLICA_MAX_LAG=" + replicaMaxLag.String(),
		"SVC_REDIS_URL=redis://" + f.e.redis + "/0"}, raised...)...)
	l := startLoad(t, baseURLs(rs),
		stream{"slow", f.keys["rd-slow"], 2, "127.0.0.2"},
		stream{"fast", f.keys["rd-fast"], 20, "127.0.0.3"})
	if !l.waitFor(10*time.Second, l.recoveredFor(time.Second, 0, "slow", "fast")) {
		t.Fatalf("the load is not served: %v", firstError(l.snapshot()))
	}
	// The primary's last write: after the keys' first-use writes
	// (last_used_at, at most one a minute a key), nothing else writes.
	sql(t, f.pg.PrimaryURL, "CREATE TABLE IF NOT EXISTS failover_tick (n int)", "INSERT INTO failover_tick VALUES (1)")
	lastWrite := l.mark("last write on the primary")
	if at := waitReadReplica(t, f, l, rs, 10*time.Second, func(r map[string]any) bool { return r["healthy"] == true && r["lagSeconds"] == 0.0 }); at[0] < 0 || at[1] < 0 {
		t.Fatal("the read replica is not in use with lag 0 before the kill")
	}
	// Idle and caught up: it has replayed that write.
	if lsn, ok := caughtUp(t, f.pg, 10*time.Second); !ok {
		t.Fatalf("the read replica did not replay the primary's %s within 10 s", lsn)
	}

	killAt := l.mark("read replica killed")
	if err := f.pg.KillReplica(); err != nil {
		t.Fatal(err)
	}
	if at := waitReadReplica(t, f, l, rs, 10*time.Second, func(r map[string]any) bool { return r["healthy"] == false }); at[0] < 0 || at[1] < 0 {
		t.Fatal("the svc-api replicas did not notice the read replica's loss within 10 s")
	}
	// The scenario's premise, not a wait for an event: the primary has
	// been idle for longer than the max lag when the replica comes back.
	if d := lastWrite + replicaMaxLag + 500*time.Millisecond - l.now(); d > 0 {
		time.Sleep(d)
	}
	restartAt := l.mark("read replica started again")
	if err := f.pg.StartReplica(); err != nil {
		t.Fatal(err)
	}
	lsn, caught := caughtUp(t, f.pg, 15*time.Second)
	if !caught {
		t.Fatalf("the restarted replica did not catch up with the primary's %s within 15 s", lsn)
	}
	caughtAt := l.mark("read replica caught up")
	// What the lag check sees at that moment: receive and replay positions,
	// and the age of the last replayed transaction.
	var positions string
	queryRow(t, f.pg.ReplicaURL, lagPositions, &positions) //nolint:errcheck // a figure for the log
	backAt := waitReadReplica(t, f, l, rs, replicaBackWithin+6*time.Second, func(r map[string]any) bool { return r["healthy"] == true })
	var positionsBack string
	queryRow(t, f.pg.ReplicaURL, lagPositions, &positionsBack) //nolint:errcheck
	shots := l.stop()

	for i, r := range rs {
		_, reps := readyz(t, f.metrics[r.URL])
		t.Logf("replica %d uses the read replica again %s after it caught up (now: %v)", i, rel(backAt[i], caughtAt), reps)
	}
	t.Logf("read replica killed at %s, started again %s, caught up %s (primary idle since %s, its position %s)",
		sec(killAt), rel(restartAt, killAt), rel(caughtAt, killAt), rel(lastWrite, killAt), lsn)
	t.Logf("the replica when caught up: %s; when back in use (or at the end): %s", positions, positionsBack)
	failed := 0
	for _, name := range []string{"slow", "fast"} {
		k := figuresOf(shots, name, 0)
		t.Logf("%s key: %d requests %v", name, k.n, k.codes)
		failed += k.n - k.codes[http.StatusOK]
	}
	if failed > 0 {
		t.Errorf("%d requests not 200 while the read replica was killed and restarted, want none: %s", failed, firstError(shots))
	}
	for i := range rs {
		if backAt[i] < 0 || backAt[i] > caughtAt+replicaBackWithin {
			t.Errorf("replica %d: the caught-up read replica is back in use %s after it caught up, want within %s (the lag check's interval)",
				i, rel(backAt[i], caughtAt), replicaBackWithin)
		}
	}
}

// caughtUp waits until the pair's replica streams from the primary and has
// replayed the primary's current position, and returns that position.
func caughtUp(t *testing.T, pg *harness.PostgresPair, limit time.Duration) (string, bool) {
	t.Helper()
	var lsn string
	if err := queryRow(t, pg.PrimaryURL, "SELECT pg_current_wal_lsn()::text", &lsn); err != nil {
		t.Fatal(err)
	}
	caught := false
	for deadline := time.Now().Add(limit); !caught && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		queryRow(t, pg.ReplicaURL, `SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn
			AND EXISTS (SELECT 1 FROM pg_stat_wal_receiver WHERE status = 'streaming')`, &caught, lsn) //nolint:errcheck // not up yet
	}
	return lsn, caught
}

// lagPositions describes what the lag check sees on a replica.
const lagPositions = `SELECT format('receive %s, replay %s, last replayed transaction %s s old',
	pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn(),
	round(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp())::numeric, 2))`

// waitReadReplica polls each replica's /readyz (its metrics listener's,
// with the detail) every 100 ms until its read
// replica is in a state ok accepts, and returns when each first was (-1:
// not within limit).
func waitReadReplica(t *testing.T, f *failover, l *steadyLoad, rs []*harness.Server, limit time.Duration, ok func(map[string]any) bool) []time.Duration {
	t.Helper()
	at := make([]time.Duration, len(rs))
	for i := range at {
		at[i] = -1
	}
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		done := true
		for i, r := range rs {
			if at[i] >= 0 {
				continue
			}
			if _, reps := readyz(t, f.metrics[r.URL]); len(reps) == 1 && ok(reps[0]) {
				at[i] = l.now()
			} else {
				done = false
			}
		}
		if done {
			break
		}
	}
	return at
}

// queryRow runs a one-row query on a server of the pair.
func queryRow(t *testing.T, url, q string, dst any, args ...any) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return conn.QueryRow(ctx, q, args...).Scan(dst)
}

// testFailoverPromotion: two replicas whose --database-url is the multi-host
// form (primary, then replica; target_session_attrs=read-write), a third
// with the primary alone (a replica left pointing at the old primary). The
// primary is stopped under load and, once requests fail, the replica
// promoted (pg_ctl promote). Figures: each key's 503s, when it is served
// again after the promotion; a key revoked on the new primary, asked at
// once of each multi-host replica; then the old primary started again as
// it was (split brain: two primaries) and finally fenced read-only (ALTER
// SYSTEM default_transaction_read_only, reloaded): what each replica's
// /readyz says and what it answers for the revoked key. Targets (issue 36):
// served again within 2 s of the promotion; the revoked key 401 on the
// next request; the replica whose configured primary is fenced read-only
// reports not ready, and the multi-host replicas keep refusing the revoked
// key. The unfenced split brain is logged, not asserted: no replica can
// tell an old primary that came back writable from the right one.
func testFailoverPromotion(t *testing.T, f *failover) {
	base := append([]string{"SVC_REDIS_URL=redis://" + f.e.redis + "/0"}, raised...)
	rs := f.startReplicas(t, 2, append([]string{"SVC_DATABASE_URL=" + f.pg.MultiHostURL()}, base...)...)
	stale := f.startReplicas(t, 1, append([]string{"SVC_DATABASE_URL=" + f.pg.PrimaryURL}, base...)...)[0]
	all := append(append([]*harness.Server{}, rs...), stale)
	l := startLoad(t, baseURLs(rs),
		stream{"slow", f.keys["pg-slow"], 2, "127.0.0.2"},
		stream{"fast", f.keys["pg-fast"], 20, "127.0.0.3"})
	rz := sampleReady(t, l, baseURLs(all), 250*time.Millisecond)
	if !l.waitFor(10*time.Second, l.recoveredFor(time.Second, 0, "slow", "fast")) {
		t.Fatalf("the load is not served: %v", firstError(l.snapshot()))
	}
	revoked := f.keys["pg-rev"]
	probe := harness.ClientFrom("127.0.0.4")
	ask := func(r *harness.Server, key string) int {
		resp, _, err := harness.Get(t.Context(), probe, r.URL+scalePath, key)
		if err != nil {
			return 0
		}
		return resp.StatusCode
	}
	for i, r := range all {
		if c := ask(r, revoked); c != http.StatusOK {
			t.Fatalf("replica %d before the failover: %d for the key to revoke, want 200", i, c)
		}
	}

	stopAt := l.mark("primary stopped")
	if err := f.pg.StopPrimary(); err != nil {
		t.Fatal(err)
	}
	// A failover manager promotes once the primary is seen down.
	if !l.waitFor(10*time.Second, func(s []shot) bool { return figuresOf(s, "fast", stopAt).lastBad >= 0 }) {
		t.Logf("no request failed within 10 s of the primary's stop")
	}
	l.mark("promotion begins")
	if err := f.pg.Promote(); err != nil {
		t.Fatal(err)
	}
	promotedAt := l.mark("replica promoted")
	l.waitFor(20*time.Second, l.recoveredFor(2*time.Second, promotedAt, "slow", "fast"))

	out, errOut, code, err := harness.Run(t.Context(), f.e.bin.KeysAdmin, []string{"SVC_DATABASE_URL=" + f.pg.ReplicaURL}, "",
		"revoke", "--org", failoverKeys["pg-rev"], "--user", f.e.fix.Owner[failoverKeys["pg-rev"]], f.keyIDs["pg-rev"])
	if err != nil || code != 0 {
		t.Fatalf("keys-admin revoke on the new primary: exit %d %v\n%s%s", code, err, out, errOut)
	}
	l.mark("key revoked on the new primary")
	afterRevoke := []int{ask(rs[0], revoked), ask(rs[1], revoked)}

	// Split brain: the old primary back as it was, beside the new one.
	if err := f.pg.StartPrimary(); err != nil {
		t.Fatal(err)
	}
	backAt := l.mark("old primary started again, writable (split brain)")
	staleReady := readyzUntil(t, stale, 5*time.Second, http.StatusOK)
	split := askAll(all, revoked, ask)

	// Fenced: the old primary made read-only, as an operator fences it.
	sql(t, f.pg.PrimaryURL, "ALTER SYSTEM SET default_transaction_read_only = on", "SELECT pg_reload_conf()")
	fencedAt := l.mark("old primary fenced read-only")
	staleNotReady := readyzUntil(t, stale, 3*time.Second, http.StatusServiceUnavailable)
	// The multi-host replicas get as long to drop a read-only connection.
	var fenced []int
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		fenced = askAll(all, revoked, ask)
		if fenced[0] == http.StatusUnauthorized && fenced[1] == http.StatusUnauthorized || time.Now().After(deadline) {
			break
		}
	}
	good := []int{ask(rs[0], f.keys["pg-slow"]), ask(rs[1], f.keys["pg-slow"])}
	shots := l.stop()
	rounds := rz.stop()

	t.Logf("primary stopped at %s; promoted %s", sec(stopAt), rel(promotedAt, stopAt))
	for _, name := range []string{"slow", "fast"} {
		k := figuresOf(shots, name, stopAt)
		t.Logf("%s key (multi-host replicas): %s; served again %s (%s after the promotion)", name, k.window(stopAt), rel(k.servedAgain, stopAt), rel(k.servedAgain, promotedAt))
		if k.servedAgain < 0 || k.servedAgain > promotedAt+promotionServed || k.lastBad > promotedAt+promotionServed {
			t.Errorf("%s key: served again %s after the promotion, last failure %s after it, want all served within %s",
				name, rel(k.servedAgain, promotedAt), rel(k.lastBad, promotedAt), promotionServed)
		}
	}
	for i := range all {
		t.Logf("replica %d /readyz: %s", i, timeline(rounds, i, stopAt))
	}
	t.Logf("revoked on the new primary: the next request on each multi-host replica %v", afterRevoke)
	t.Logf("old primary back writable %s: the single-host replica's /readyz %s; the revoked key on replicas 0, 1 (multi-host), 2 (single-host): %v",
		rel(backAt, stopAt), staleReady, split)
	t.Logf("old primary fenced read-only %s: the single-host replica's /readyz %s; the revoked key on replicas 0, 1, 2: %v; a good key on the multi-host replicas %v",
		rel(fencedAt, stopAt), staleNotReady, fenced, good)
	for i, c := range afterRevoke {
		if c != http.StatusUnauthorized {
			t.Errorf("replica %d: %d for a key revoked on the new primary, on the next request, want 401", i, c)
		}
	}
	if !strings.HasPrefix(staleNotReady, "503") {
		t.Errorf("the replica whose configured primary is fenced read-only: /readyz %s, want 503 (issue 36: readiness fails where the configured primary is read-only or in recovery)", staleNotReady)
	}
	if fenced[0] != http.StatusUnauthorized || fenced[1] != http.StatusUnauthorized || good[0] != http.StatusOK || good[1] != http.StatusOK {
		t.Errorf("with the old primary fenced, the multi-host replicas answer %v for the revoked key and %v for a good one, want 401 and 200", fenced[:2], good)
	}
}

// readyzUntil polls a replica's /readyz every 100 ms until it answers want
// or limit passes, and returns its last answer: "503 {body}".
func readyzUntil(t *testing.T, r *harness.Server, limit time.Duration, want int) string {
	t.Helper()
	var last string
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		resp, body, err := harness.Get(t.Context(), http.DefaultClient, r.URL+"/readyz", "")
		if err != nil {
			last = err.Error()
			continue
		}
		last = fmt.Sprintf("%d %s", resp.StatusCode, compactJSON(body))
		if resp.StatusCode == want {
			break
		}
	}
	return last
}

// askAll asks each replica with key and returns the statuses.
func askAll(all []*harness.Server, key string, ask func(*harness.Server, string) int) []int {
	var codes []int
	for _, r := range all {
		codes = append(codes, ask(r, key))
	}
	return codes
}
