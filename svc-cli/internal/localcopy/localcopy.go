// Package localcopy is the SQLite file that `svc insights sync` keeps: the
// organization's insight rows as the service sent them, and the sync token
// of the changes feed that brings them up to date (never the API key).
//
// The file holds two tables: insights (id, json: one row as GET /insights
// returns it, with date, account, campaign, currency, spend, impressions
// and clicks as columns generated from it for queries) and sync_state (the
// token, the site the copy comes from, the time of the last sync).
package localcopy

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"time"

	_ "modernc.org/sqlite" // pure-Go SQLite driver, registered as "sqlite"
)

// schema creates the copy's tables; it is idempotent.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS insights (
		id          TEXT PRIMARY KEY,
		json        TEXT NOT NULL,
		date        TEXT GENERATED ALWAYS AS (substr(json_extract(json, '$.date'), 1, 10)) VIRTUAL,
		platform_ad_account_id TEXT GENERATED ALWAYS AS (json_extract(json, '$.platformAdAccountId')) VIRTUAL,
		campaign_id TEXT GENERATED ALWAYS AS (json_extract(json, '$.campaignId')) VIRTUAL,
		currency    TEXT GENERATED ALWAYS AS (json_extract(json, '$.account.currency')) VIRTUAL,
		spend       TEXT GENERATED ALWAYS AS (json_extract(json, '$.spend')) VIRTUAL,
		impressions INTEGER GENERATED ALWAYS AS (json_extract(json, '$.impressions')) VIRTUAL,
		clicks      INTEGER GENERATED ALWAYS AS (json_extract(json, '$.clicks')) VIRTUAL
	)`,
	`CREATE INDEX IF NOT EXISTS insights_date_idx ON insights (date)`,
	`CREATE TABLE IF NOT EXISTS sync_state (name TEXT PRIMARY KEY, value TEXT NOT NULL)`,
}

// Copy is an open copy file.
type Copy struct {
	db   *sql.DB
	path string
}

// Open opens (creating it if needed) the copy at path.
func Open(ctx context.Context, path string) (*Copy, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	for _, s := range schema {
		if _, err := db.ExecContext(ctx, s); err != nil {
			db.Close()
			return nil, fmt.Errorf("%s is not a copy svc can use: %w", path, err)
		}
	}
	return &Copy{db: db, path: path}, nil
}

// Close closes the file.
func (c *Copy) Close() error { return c.db.Close() }

// State is what the copy knows about its last sync.
type State struct {
	Token, Site string
	SyncedAt    time.Time
}

// State reads the copy's sync state (zero for a new copy).
func (c *Copy) State(ctx context.Context) (State, error) {
	var s State
	rows, err := c.db.QueryContext(ctx, `SELECT name, value FROM sync_state`)
	if err != nil {
		return s, err
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return s, err
		}
		switch k {
		case "token":
			s.Token = v
		case "site":
			s.Site = v
		case "synced_at":
			s.SyncedAt, _ = time.Parse(time.RFC3339, v)
		}
	}
	return s, rows.Err()
}

// Counts are what a sync did to the copy.
type Counts struct {
	// Read is the number of changes the service sent.
	Read int
	// Added, Changed and Removed count the rows; Unchanged the upserts of a
	// row already as sent, Absent the removals of a row the copy did not have.
	Added, Changed, Unchanged, Removed, Absent int
}

// Tx is one sync applied to the copy: nothing is visible until Commit.
type Tx struct {
	tx     *sql.Tx
	Counts Counts
}

// Begin starts a sync. fresh empties the copy first (a first sync).
func (c *Copy) Begin(ctx context.Context, fresh bool) (*Tx, error) {
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	if fresh {
		for _, s := range []string{`DELETE FROM insights`, `DELETE FROM sync_state WHERE name = 'token'`} {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				tx.Rollback()
				return nil, err
			}
		}
	}
	return &Tx{tx: tx}, nil
}

// Upsert stores a row as the service sent it.
func (t *Tx) Upsert(ctx context.Context, id string, raw []byte) error {
	t.Counts.Read++
	var old sql.NullString
	err := t.tx.QueryRowContext(ctx, `SELECT json FROM insights WHERE id = ?`, id).Scan(&old)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		t.Counts.Added++
	case err != nil:
		return err
	case old.String == string(raw):
		t.Counts.Unchanged++
		return nil
	default:
		t.Counts.Changed++
	}
	_, err = t.tx.ExecContext(ctx, `INSERT INTO insights (id, json) VALUES (?, ?)
		ON CONFLICT (id) DO UPDATE SET json = excluded.json`, id, string(raw))
	return err
}

// Delete removes a row.
func (t *Tx) Delete(ctx context.Context, id string) error {
	t.Counts.Read++
	res, err := t.tx.ExecContext(ctx, `DELETE FROM insights WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		t.Counts.Removed++
	} else {
		t.Counts.Absent++
	}
	return nil
}

// Commit stores the token of the next sync and the site with the rows.
func (t *Tx) Commit(ctx context.Context, token, site string, now time.Time) error {
	for k, v := range map[string]string{"token": token, "site": site, "synced_at": now.UTC().Format(time.RFC3339)} {
		if _, err := t.tx.ExecContext(ctx, `INSERT INTO sync_state (name, value) VALUES (?, ?)
			ON CONFLICT (name) DO UPDATE SET value = excluded.value`, k, v); err != nil {
			t.tx.Rollback()
			return err
		}
	}
	return t.tx.Commit()
}

// Rollback abandons the sync.
func (t *Tx) Rollback() { _ = t.tx.Rollback() }

// Rows returns the copy's rows, id → JSON, for checks.
func (c *Copy) Rows(ctx context.Context) (map[string]string, error) {
	rows, err := c.db.QueryContext(ctx, `SELECT id, json FROM insights`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, js string
		if err := rows.Scan(&id, &js); err != nil {
			return nil, err
		}
		out[id] = js
	}
	return out, rows.Err()
}
