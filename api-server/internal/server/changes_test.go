package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/uptrace/bun"
)

// changesPage is a page of GET /insights/changes.
type changesPage struct {
	Data []struct {
		Change    string         `json:"change"`
		Insight   map[string]any `json:"insight"`
		ID        string         `json:"id"`
		AccountID string         `json:"accountId"`
		Date      string         `json:"date"`
	} `json:"data"`
	Meta struct {
		Limit      int     `json:"limit"`
		NextCursor *string `json:"nextCursor"`
		SyncToken  *string `json:"syncToken"`
		Source     string  `json:"source"`
	} `json:"meta"`
}

// sync reads a whole sync over HTTP, limit changes a page, from since ("":
// a first sync); it returns the rows upserted (id → spend), the rows
// removed and the next token, and checks that only the last page has a
// token and that no row comes twice.
func (e *env) sync(key, since string, limit int) (map[string]string, []string, string) {
	e.t.Helper()
	ups, dels := map[string]string{}, []string(nil)
	q := url.Values{"limit": {fmt.Sprint(limit)}}
	if since != "" {
		q.Set("since", since)
	}
	for {
		w := e.get(base+"/insights/changes?"+q.Encode(), key)
		if w.Code != http.StatusOK {
			e.t.Fatalf("status %d: %s", w.Code, w.Body.String())
		}
		var p changesPage
		if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
			e.t.Fatal(err)
		}
		if len(p.Data) > limit || p.Meta.Limit != limit || p.Meta.Source != "stored_snapshot" {
			e.t.Fatalf("page of %d changes, meta %+v", len(p.Data), p.Meta)
		}
		for _, c := range p.Data {
			id := c.ID
			if c.Change == "upsert" {
				id, _ = c.Insight["id"].(string)
			}
			if _, dup := ups[id]; dup {
				e.t.Fatalf("row %s read twice in one sync", id)
			}
			switch c.Change {
			case "upsert":
				ups[id], _ = c.Insight["spend"].(string)
			case "delete":
				if c.AccountID == "" || len(c.Date) != len("2006-01-02") {
					e.t.Fatalf("a removal without its account or date: %+v", c)
				}
				dels = append(dels, id)
			default:
				e.t.Fatalf("change %q", c.Change)
			}
		}
		if (p.Meta.NextCursor == nil) == (p.Meta.SyncToken == nil) {
			e.t.Fatalf("nextCursor %v and syncToken %v: exactly one must be set", p.Meta.NextCursor, p.Meta.SyncToken)
		}
		if p.Meta.SyncToken != nil {
			return ups, dels, *p.Meta.SyncToken
		}
		q = url.Values{"limit": {fmt.Sprint(limit)}, "cursor": {*p.Meta.NextCursor}}
	}
}

// changeRows writes what an import writes for the feed: rows set to spend
// and rows removed, with their change entries, in one transaction.
func (e *env) changeRows(spend string, set, del []string) {
	e.t.Helper()
	tx, err := e.db.BeginTx(e.t.Context(), nil)
	if err != nil {
		e.t.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck
	now := time.Now().UTC()
	for _, q := range []struct {
		sql string
		ids []string
	}{
		{`UPDATE insights_daily SET spend = ? WHERE id IN (?)`, set},
		{`INSERT INTO insight_changes (organization_id, insight_id, account_id, date, kind, recorded_at)
		  SELECT organization_id, id, account_id, date, 'upsert', ? FROM insights_daily WHERE id IN (?)`, set},
		{`INSERT INTO insight_changes (organization_id, insight_id, account_id, date, kind, recorded_at)
		  SELECT organization_id, id, account_id, date, 'delete', ? FROM insights_daily WHERE id IN (?)`, del},
		{`DELETE FROM insights_daily WHERE ? IS NOT NULL AND id IN (?)`, del},
	} {
		if len(q.ids) == 0 {
			continue
		}
		arg := any(now)
		if strings.HasPrefix(q.sql, "UPDATE") {
			arg = spend
		}
		if _, err := tx.ExecContext(e.t.Context(), q.sql, arg, bun.In(q.ids)); err != nil {
			e.t.Fatalf("%s: %v", q.sql, err)
		}
	}
	if err := tx.Commit(); err != nil {
		e.t.Fatal(err)
	}
	e.waitHorizon()
}

// waitHorizon waits (at most 30 s) until every change entry is below the
// database's snapshot xmin, where a sync's window ends: the xids are the
// cluster's, and a transaction open in another database of the server (other
// packages' tests share it) holds the window back; nothing is lost meanwhile.
func (e *env) waitHorizon() {
	e.t.Helper()
	if e.name != "postgres" {
		return
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var ok bool
		if err := e.db.QueryRowContext(e.t.Context(), `SELECT COALESCE(max(txid) < pg_snapshot_xmin(pg_current_snapshot()), true) FROM insight_changes`).Scan(&ok); err != nil {
			e.t.Fatal(err)
		}
		if ok {
			return
		}
	}
	e.t.Fatal("the change entries stayed above the snapshot horizon for 30 s")
}

// TestChanges, on both databases: a first sync over HTTP reads every row of
// the key's organization once, paged, the token on the last page only; a
// sync with no import reads nothing; after an import, exactly the rows it
// changed and removed. Another organization's token or cursor, a tampered
// one, accountId/from/to, a bad limit or an unknown field are 400 with the
// error body and reveal no row; a token older than the retention is 410;
// no key 401, no insights:read 403.
func TestChanges(t *testing.T) {
	dbtest.Each(t, testenv.Migrate, func(t *testing.T, b dbtest.Backend) {
		e := newEnv(t, b, opts{})
		ups, dels, token := e.sync(e.all, "", 4)
		if len(ups) != 15 || len(dels) != 0 {
			t.Fatalf("first sync: %d rows, %d removals; want org_a's 15 rows", len(ups), len(dels))
		}
		for id := range ups {
			if strings.HasPrefix(id, "ins_b") {
				t.Fatalf("org_a's first sync read %s", id)
			}
		}
		if ups, _, again := e.sync(e.all, token, 4); len(ups) != 0 {
			t.Fatalf("a sync with no import read %v", ups)
		} else {
			token = again
		}
		e.changeRows("9.99", []string{"ins_a1_acct_1", "ins_a2_acct_2", "ins_b1_acct_1"}, []string{"ins_a1_cmp_3"})
		ups, dels, next := e.sync(e.all, token, 1)
		if len(ups) != 2 || ups["ins_a1_acct_1"] == "" || ups["ins_a2_acct_2"] == "" ||
			len(dels) != 1 || dels[0] != "ins_a1_cmp_3" {
			t.Fatalf("after an import: upserts %v, removals %v", ups, dels)
		}
		_, _, tokenB := e.sync(e.b, "", 100)
		w := e.get(base+"/insights/changes?limit=1", e.all)
		var p changesPage
		_ = json.Unmarshal(w.Body.Bytes(), &p)
		if p.Meta.NextCursor == nil {
			t.Fatalf("no cursor: %s", w.Body.String())
		}
		cursor := *p.Meta.NextCursor
		// One character changed to another URL-safe one (a flipped bit
		// can leave the alphabet: 'Z'^1 is '['; the query would refuse the
		// shape before the MAC is checked).
		tampered := []byte(next)
		i := len(tampered) / 2
		if orig := tampered[i]; orig == 'A' {
			tampered[i] = 'B'
		} else {
			tampered[i] = 'A'
		}
		for _, c := range []struct {
			q, key string
			status int
			msg    string
		}{
			{"since=" + tokenB, e.all, 400, "since is not a sync token of this organization"},
			{"since=" + next, e.b, 400, "since is not a sync token of this organization"},
			{"cursor=" + cursor, e.b, 400, "cursor is not a cursor of this organization"},
			{"since=" + string(tampered), e.all, 400, "since is not a sync token"},
			{"since=" + cursor, e.all, 400, "since is not a sync token"}, // a cursor is no token
			{"cursor=" + next, e.all, 400, "cursor is not a cursor"},
			{"since=" + next + "&accountId=acc_a1", e.all, 400, "accountId is not accepted"},
			{"from=2026-01-01", e.all, 400, "from is not accepted"},
			{"limit=1001", e.all, 400, "limit must be between 1 and 1000"},
			{"offset=3", e.all, 400, `unknown query parameter "offset"`},
			{"since=" + next, "", 401, ""},
			{"since=" + next, e.accOnly, 403, ""},
		} {
			w := e.get(base+"/insights/changes?"+c.q, c.key)
			if w.Code != c.status {
				t.Errorf("%s: status %d, want %d: %s", c.q, w.Code, c.status, w.Body.String())
				continue
			}
			body := w.Body.String()
			if strings.Contains(body, "ins_") {
				t.Errorf("%s: the refusal names a row: %s", c.q, body)
			}
			if m := decodeError(t, w); c.msg != "" && !strings.Contains(fmt.Sprint(m.Message), c.msg) {
				t.Errorf("%s: message %v, want %q", c.q, m.Message, c.msg)
			}
		}
		// Pruned past the token: 410 with the error body.
		horizon := `INSERT INTO insight_change_horizons (organization_id, pruned_below, pruned_at)
			SELECT 'org_a', max(seq) + 1, ? FROM insight_changes`
		if b.Name == "postgres" {
			horizon = `INSERT INTO insight_change_horizons (organization_id, pruned_below, pruned_at)
				SELECT 'org_a', pg_snapshot_xmax(pg_current_snapshot()), ?`
		}
		if _, err := e.db.ExecContext(t.Context(), horizon, time.Now().UTC()); err != nil {
			t.Fatal(err)
		}
		w = e.get(base+"/insights/changes?since="+token, e.all)
		if w.Code != http.StatusGone {
			t.Fatalf("a token below the horizon: status %d: %s", w.Code, w.Body.String())
		}
		if m := decodeError(t, w); !strings.Contains(fmt.Sprint(m.Message), "start a first sync again") {
			t.Errorf("410 message %v", m.Message)
		}
	})
}
