package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Shape of the generated data: 20 organizations, 400 days, 5 accounts and
// 20 campaigns per organization. Insight rows are spread evenly over
// organizations and days; about one row in ten is account-level.
const (
	genOrgs             = 20
	genDays             = 400
	genAccountsPerOrg   = 5
	genCampaignsPerAcct = 4
)

func orgID(o int) string        { return fmt.Sprintf("org_%02d", o+1) }
func ownerID(o int) string      { return fmt.Sprintf("u_owner_%02d", o+1) }
func accountID(o, a int) string { return fmt.Sprintf("acc_%02d_%d", o+1, a+1) }
func campaignID(o, a, c int) string {
	return fmt.Sprintf("cmp_%02d_%d_%d", o+1, a+1, c+1)
}

var currencies = []string{"EUR", "USD", "JPY", "GBP", "AUD"}
var timezones = []string{"Europe/Berlin", "America/New_York", "Asia/Tokyo", "Europe/London", "Australia/Sydney"}

// generate fills the migrated database at url with rows insight rows and
// their organizations, members, accounts and campaigns, then runs VACUUM
// ANALYZE and a CHECKPOINT. The insights indexes are dropped during the COPY and rebuilt from
// their own definitions (pg_get_indexdef), so the schema stays the
// project's; foreign keys are not checked during the load (the rows are
// consistent by construction).
func generate(ctx context.Context, url string, rows int, today time.Time) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	now := time.Now().UTC()
	syncedAt := today.Add(6 * time.Hour)
	if syncedAt.After(now) {
		syncedAt = now
	}

	var orgRows, memberRows, snapRows, acctRows, cmpRows [][]any
	for o := range genOrgs {
		orgRows = append(orgRows, []any{orgID(o), fmt.Sprintf("Org %d", o+1), "active", nil, now, now})
		memberRows = append(memberRows, []any{orgID(o), ownerID(o), "owner", nil, now, now})
		snapRows = append(snapRows, []any{orgID(o), syncedAt, now})
		for a := range genAccountsPerOrg {
			acctRows = append(acctRows, []any{accountID(o, a), orgID(o), fmt.Sprintf("act_%02d%d", o+1, a+1),
				fmt.Sprintf("Account %d of org %d", a+1, o+1), currencies[a], timezones[a], a != 4, syncedAt,
				"enc:canary-token", nil, now})
			for c := range genCampaignsPerAcct {
				cmpRows = append(cmpRows, []any{campaignID(o, a, c), orgID(o), accountID(o, a), fmt.Sprintf("act_%02d%d", o+1, a+1),
					currencies[a], timezones[a], fmt.Sprintf("Campaign %d.%d", a+1, c+1), "OUTCOME_SALES", "ACTIVE",
					nullIf(c == 3, "ACTIVE"), nullIf(c%2 == 1, "25.50"), nullIf(c%2 == 0, "1000.00"), syncedAt, nil, now})
			}
		}
	}
	copies := []struct {
		table string
		cols  []string
		rows  [][]any
	}{
		{"organizations", []string{"id", "name", "subscription_status", "trial_ends_at", "created_at", "updated_at"}, orgRows},
		{"organization_members", []string{"organization_id", "user_id", "role", "removed_at", "created_at", "updated_at"}, memberRows},
		{"organization_snapshots", []string{"organization_id", "data_as_of", "imported_at"}, snapRows},
		{"ad_accounts", []string{"id", "organization_id", "platform_ad_account_id", "account_name", "currency", "timezone",
			"is_active", "last_sync_at", "access_token_encrypted", "raw_payload", "updated_at"}, acctRows},
		{"campaigns", []string{"id", "organization_id", "account_id", "platform_ad_account_id", "currency", "timezone",
			"name", "objective", "status", "effective_status", "daily_budget", "lifetime_budget", "synced_at", "raw_payload", "updated_at"}, cmpRows},
	}
	for _, c := range copies {
		if _, err := conn.CopyFrom(ctx, pgx.Identifier{c.table}, c.cols, pgx.CopyFromRows(c.rows)); err != nil {
			return fmt.Errorf("copy %s: %w", c.table, err)
		}
	}

	// Drop the insights indexes (not the primary key) and remember them.
	var defs []string
	r, err := conn.Query(ctx, `SELECT i.relname, pg_get_indexdef(i.oid) FROM pg_index x
		JOIN pg_class i ON i.oid = x.indexrelid WHERE x.indrelid = 'insights_daily'::regclass AND NOT x.indisprimary`)
	if err != nil {
		return err
	}
	var names []string
	for r.Next() {
		var n, d string
		if err := r.Scan(&n, &d); err != nil {
			return err
		}
		names, defs = append(names, n), append(defs, d)
	}
	if err := r.Err(); err != nil {
		return err
	}
	for _, n := range names {
		if _, err := conn.Exec(ctx, "DROP INDEX "+pgx.Identifier{n}.Sanitize()); err != nil {
			return err
		}
	}

	// COPY the insights on two connections.
	const workers = 2
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := pgx.Connect(ctx, url)
			if err != nil {
				errs[w] = err
				return
			}
			defer c.Close(ctx)
			if _, err := c.Exec(ctx, "SET session_replication_role = replica"); err != nil {
				errs[w] = err
				return
			}
			src := &insightSource{i: w, step: workers, n: rows, today: today, synced: syncedAt, now: now}
			if _, err := c.CopyFrom(ctx, pgx.Identifier{"insights_daily"}, insightCols, src); err != nil {
				errs[w] = fmt.Errorf("copy insights_daily: %w", err)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if _, err := conn.Exec(ctx, "SET maintenance_work_mem = '512MB'"); err != nil {
		return err
	}
	for _, d := range defs {
		if _, err := conn.Exec(ctx, d); err != nil {
			return fmt.Errorf("rebuild index: %w", err)
		}
	}
	// The per-day counts and sums: the import keeps them, other writers
	// compute them again (migration 20261129110000).
	if _, err := conn.Exec(ctx, "SELECT insights_daily_aggregates_refresh()"); err != nil {
		return fmt.Errorf("compute the per-day counts and sums: %w", err)
	}
	// The data versions and import records that the import would have
	// written with these rows (CONTRACT-45): version 1 for every
	// (organization, account, day), one import record per organization.
	// The tags are read from them (DESIGN §4c), as on a served database.
	for _, q := range []string{
		`INSERT INTO insight_day_versions (organization_id, account_id, date, version)
		 SELECT DISTINCT organization_id, account_id, date, 1 FROM insights_daily`,
		`INSERT INTO insight_imports (organization_id, committed_at, upserts, deletes, changed_days)
		 SELECT organization_id, now(), count(*), 0, '[]'::jsonb FROM insights_daily GROUP BY organization_id`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("data versions: %w", err)
		}
	}
	if _, err := conn.Exec(ctx, "VACUUM ANALYZE"); err != nil {
		return fmt.Errorf("vacuum analyze: %w", err)
	}
	// Write the load's dirty pages out now, so that the checkpoint they
	// would cause later does not run (and take disk and CPU) during the
	// measurements.
	// CHECKPOINT needs a superuser or pg_checkpoint; without it the run
	// goes on, measured as it was before.
	if _, err := conn.Exec(ctx, "CHECKPOINT"); err != nil {
		fmt.Fprintf(os.Stderr, "bench: CHECKPOINT refused (%v); a checkpoint may run during the measurements\n", err)
	}
	return nil
}

func nullIf(null bool, v string) any {
	if null {
		return nil
	}
	return v
}

var insightCols = []string{"id", "organization_id", "account_id", "campaign_id", "platform_ad_account_id", "currency",
	"timezone", "date", "attribution_window", "purchase_measurement", "spend", "ctr", "cpc", "cpm", "impressions",
	"reach", "clicks", "purchases", "purchase_value", "roas", "conversions", "synced_at", "raw_payload", "updated_at"}

// insightSource yields insight rows i, i+step, … below n. Row i belongs to
// organization i%20, day (i/20)%400 before today, and its account and
// campaign follow from its rank within that day.
type insightSource struct {
	i, step, n         int
	today, synced, now time.Time
	row                []any
}

var measurements = []string{"reported_purchase_value", "reported_purchase_count", "unavailable"}

func (s *insightSource) Next() bool {
	if s.i >= s.n {
		return false
	}
	i := s.i
	s.i += s.step
	o := i % genOrgs
	j := i / genOrgs
	day := j % genDays
	k := j / genDays
	a := k % genAccountsPerOrg
	var cmp any
	if k%10 != 9 {
		cmp = campaignID(o, a, (k/genAccountsPerOrg)%genCampaignsPerAcct)
	}
	impressions := int64(1000 + i%9000)
	clicks := int64(10 + i%300)
	spend := fmt.Sprintf("%d.%02d", 5+i%200, i%100)
	var purchases, value, roas any
	m := measurements[i%3]
	if m != "unavailable" {
		purchases, value, roas = float64(i%7), float64(i%7)*12.5, float64(i%50)/10
	}
	s.row = []any{fmt.Sprintf("ins_%09d", i), orgID(o), accountID(o, a), cmp, fmt.Sprintf("act_%02d%d", o+1, a+1),
		currencies[a], timezones[a], s.today.AddDate(0, 0, -day), "7d_click_1d_view", m, spend,
		fmt.Sprintf("%d.%02d", 1+i%3, i%100), fmt.Sprintf("0.%02d", 10+i%90), fmt.Sprintf("%d.%02d", 3+i%9, i%100),
		impressions, impressions * 8 / 10, clicks, purchases, value, roas, int64(i % 13), s.synced, nil, s.now}
	return true
}

func (s *insightSource) Values() ([]any, error) { return s.row, nil }
func (s *insightSource) Err() error             { return nil }

// createDatabase creates a database and returns its URL.
func createDatabase(ctx context.Context, adminURL, name string) (string, error) {
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	u, err := url.Parse(adminURL)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	return u.String(), nil
}

func dropDatabase(ctx context.Context, adminURL, name string) error {
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	return err
}
