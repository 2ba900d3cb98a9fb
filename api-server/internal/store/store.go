package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/adsnap/svc/keys-admin/database"
	"github.com/jackc/pgx/v5/pgxpool"
)

// AccountRow is what the accounts query reads: the columns of SPEC §2's
// Account and nothing else.
type AccountRow struct {
	ID          string
	AccountName string
	Currency    string
	Timezone    string
	IsActive    bool
	LastSyncAt  NullTime
}

// CampaignRow is what the campaigns query reads.
type CampaignRow struct {
	ID                  string
	PlatformAdAccountID string
	Name                string
	Objective           string
	Status              string
	EffectiveStatus     sql.NullString
	DailyBudget         sql.NullString
	LifetimeBudget      sql.NullString
	SyncedAt            NullTime
	Currency            string
	Timezone            string
}

// InsightRow is what the insights query reads. Date is YYYY-MM-DD.
type InsightRow struct {
	ID                  string
	PlatformAdAccountID string
	AttributionWindow   string
	CampaignID          sql.NullString
	Date                string
	SyncedAt            NullTime
	Currency            string
	Timezone            string
	PurchaseMeasurement string
	Spend               string
	CTR                 string
	CPC                 string
	CPM                 string
	Impressions         int64
	Reach               int64
	Clicks              int64
	Purchases           sql.NullFloat64
	PurchaseValue       sql.NullFloat64
	ROAS                sql.NullFloat64
}

// ListParams selects one page. Limit is the number of rows to read (the API
// asks for one more than it returns, to know whether a next page exists).
// AccountID, when not empty, keeps the rows of that account. From and To
// (YYYY-MM-DD, inclusive) bound insight dates.
type ListParams struct {
	Limit     int
	Offset    int
	AccountID string
	From, To  string
}

// Meta is what every list response needs besides its rows.
type Meta struct {
	// DataAsOf is the newest sync time among the organization's snapshot
	// rows, recorded by the import; the zero time if nothing was imported.
	DataAsOf time.Time
	// AccountFound reports whether the requested account belongs to the
	// organization (true when no account was requested).
	AccountFound bool
}

// Store runs the API's read queries. Every query is scoped by organization
// and served by an index range scan on (organization_id, …).
type Store struct {
	db    *sql.DB
	pool  *pgxpool.Pool // PostgreSQL: the *Page statements go through pgx
	pg    bool
	stmts map[queryName]*sql.Stmt
}

type queryName int

const (
	qMeta queryName = iota
	qMetaAccount
	qAccounts
	qAccountsByAccount
	qCampaigns
	qCampaignsByAccount
	qInsights
	qInsightsByAccount
	qInsightsSeek
	qInsightsByAccountSeek
)

// seekFrom is the least offset from which an insights page is read with a
// seek on PostgreSQL (pgQueries); below it the plain LIMIT/OFFSET costs
// less than the seek's extra index probe and init plans.
const seekFrom = 64

// The queries are written for PostgreSQL ($n placeholders, casts that give
// numeric and date columns their stored text form); sqliteForm adapts them.
var queries = map[queryName]string{
	qMeta: `SELECT (SELECT data_as_of FROM organization_snapshots WHERE organization_id = $1), 1`,
	qMetaAccount: `SELECT (SELECT data_as_of FROM organization_snapshots WHERE organization_id = $1),
		(SELECT COUNT(*) FROM ad_accounts WHERE organization_id = $1 AND id = $2)`,
	qAccounts: `SELECT id, account_name, currency, timezone, is_active, last_sync_at
		FROM ad_accounts WHERE organization_id = $1
		ORDER BY id LIMIT $2 OFFSET $3`,
	qAccountsByAccount: `SELECT id, account_name, currency, timezone, is_active, last_sync_at
		FROM ad_accounts WHERE organization_id = $1 AND id = $4
		ORDER BY id LIMIT $2 OFFSET $3`,
	qCampaigns: `SELECT id, platform_ad_account_id, name, objective, status, effective_status,
		daily_budget::text, lifetime_budget::text, synced_at, currency, timezone
		FROM campaigns WHERE organization_id = $1
		ORDER BY id LIMIT $2 OFFSET $3`,
	qCampaignsByAccount: `SELECT id, platform_ad_account_id, name, objective, status, effective_status,
		daily_budget::text, lifetime_budget::text, synced_at, currency, timezone
		FROM campaigns WHERE organization_id = $1 AND account_id = $4
		ORDER BY id LIMIT $2 OFFSET $3`,
	qInsights: `SELECT id, platform_ad_account_id, attribution_window, campaign_id,
		to_char(date, 'YYYY-MM-DD'), synced_at, currency, timezone, purchase_measurement,
		spend::text, ctr::text, cpc::text, cpm::text, impressions, reach, clicks,
		purchases, purchase_value, roas
		FROM insights_daily WHERE organization_id = $1 AND date >= $4::date AND date <= $5::date
		ORDER BY date DESC, id LIMIT $2 OFFSET $3`,
	qInsightsByAccount: `SELECT id, platform_ad_account_id, attribution_window, campaign_id,
		to_char(date, 'YYYY-MM-DD'), synced_at, currency, timezone, purchase_measurement,
		spend::text, ctr::text, cpc::text, cpm::text, impressions, reach, clicks,
		purchases, purchase_value, roas
		FROM insights_daily WHERE organization_id = $1 AND account_id = $6 AND date >= $4::date AND date <= $5::date
		ORDER BY date DESC, id LIMIT $2 OFFSET $3`,
}

// pgQueries replace some of the queries on PostgreSQL.
//
// Insights pages from offset seekFrom on are positioned without walking the
// rows before them. The day counts kept by triggers (migration
// 20261121140000_insights_day_counts) give, by a running sum over at most
// 90 days, the day on which the requested offset falls and how many of that
// day's rows come before it; the row at the offset is then found among that
// day's rows only, by an index-only scan of a key index, and the page is
// read from that row on by a range scan of the covering index. A plain
// LIMIT/OFFSET walks every row before the offset and evaluates every
// returned column (to_char, numeric::text, …) of each: at offset 10000 that
// is ~11 ms of PostgreSQL time, against a cost that does not depend on the
// offset or the table's size here (api-server/README.md, Performance). The
// result is the same page: the rows at or after (date DESC, id) position $3
// of the window.
var pgQueries = map[queryName]string{
	qInsightsSeek: `WITH c AS (SELECT date, n, sum(n) OVER (ORDER BY date DESC) AS upto
		FROM insights_daily_counts WHERE organization_id = $1 AND date >= $4::date AND date <= $5::date),
		day AS MATERIALIZED (SELECT date, ($3 - (upto - n))::bigint AS skip FROM c WHERE upto > $3 ORDER BY date DESC LIMIT 1),
		pos AS MATERIALIZED (SELECT date, id FROM insights_daily
		WHERE organization_id = $1 AND date = (SELECT date FROM day)
		ORDER BY id LIMIT 1 OFFSET (SELECT skip FROM day))
		SELECT i.id, i.platform_ad_account_id, i.attribution_window, i.campaign_id,
		to_char(i.date, 'YYYY-MM-DD'), i.synced_at, i.currency, i.timezone, i.purchase_measurement,
		i.spend::text, i.ctr::text, i.cpc::text, i.cpm::text, i.impressions, i.reach, i.clicks,
		i.purchases, i.purchase_value, i.roas
		FROM insights_daily AS i WHERE i.organization_id = $1 AND i.date >= $4::date
		AND i.date <= (SELECT date FROM pos) AND (i.date < (SELECT date FROM pos) OR i.id >= (SELECT id FROM pos))
		ORDER BY i.date DESC, i.id LIMIT $2`,
	qInsightsByAccountSeek: `WITH c AS (SELECT date, n, sum(n) OVER (ORDER BY date DESC) AS upto
		FROM insights_daily_account_counts
		WHERE organization_id = $1 AND account_id = $6 AND date >= $4::date AND date <= $5::date),
		day AS MATERIALIZED (SELECT date, ($3 - (upto - n))::bigint AS skip FROM c WHERE upto > $3 ORDER BY date DESC LIMIT 1),
		pos AS MATERIALIZED (SELECT date, id FROM insights_daily
		WHERE organization_id = $1 AND account_id = $6 AND date = (SELECT date FROM day)
		ORDER BY id LIMIT 1 OFFSET (SELECT skip FROM day))
		SELECT i.id, i.platform_ad_account_id, i.attribution_window, i.campaign_id,
		to_char(i.date, 'YYYY-MM-DD'), i.synced_at, i.currency, i.timezone, i.purchase_measurement,
		i.spend::text, i.ctr::text, i.cpc::text, i.cpm::text, i.impressions, i.reach, i.clicks,
		i.purchases, i.purchase_value, i.roas
		FROM insights_daily AS i WHERE i.organization_id = $1 AND i.account_id = $6 AND i.date >= $4::date
		AND i.date <= (SELECT date FROM pos) AND (i.date < (SELECT date FROM pos) OR i.id >= (SELECT id FROM pos))
		ORDER BY i.date DESC, i.id LIMIT $2`,
}

// metaCols is the number of meta columns that pageMetaForm puts first.
const metaCols = 2

// pgPageForms are the PostgreSQL texts that the *Page methods run: each
// list query in its meta form (pageMetaForm).
var pgPageForms = func() map[queryName]string {
	account := map[queryName]int{qAccountsByAccount: 4, qCampaignsByAccount: 4, qInsightsByAccount: 6, qInsightsByAccountSeek: 6}
	out := map[queryName]string{}
	for _, q := range []queryName{qAccounts, qAccountsByAccount, qCampaigns, qCampaignsByAccount,
		qInsights, qInsightsByAccount, qInsightsSeek, qInsightsByAccountSeek} {
		out[q] = pageMetaForm(pgForm(q), account[q])
	}
	return out
}()

// pageMetaForm puts the meta columns (qMeta's, or qMetaAccount's for the
// accountId in placeholder $account; 0: none) first in the select list of
// the outermost SELECT of q, the first one outside parentheses. Every row
// of a page then carries its meta, at the cost of two init plans evaluated
// once per statement, and a page is one statement instead of two.
func pageMetaForm(q string, account int) string {
	found := "1::bigint"
	if account > 0 {
		found = fmt.Sprintf("(SELECT COUNT(*) FROM ad_accounts WHERE organization_id = $1 AND id = $%d)", account)
	}
	cols := "(SELECT data_as_of FROM organization_snapshots WHERE organization_id = $1), " + found + ", "
	depth := 0
	for i := 0; i < len(q); i++ {
		switch q[i] {
		case '(':
			depth++
		case ')':
			depth--
		case 'S':
			if depth == 0 && strings.HasPrefix(q[i:], "SELECT ") {
				return q[:i+len("SELECT ")] + cols + q[i+len("SELECT "):]
			}
		}
	}
	panic("store: no outermost SELECT in " + q)
}

// pgForm returns the PostgreSQL text of a query.
func pgForm(name queryName) string {
	if q, ok := pgQueries[name]; ok {
		return q
	}
	return queries[name]
}

var (
	reCast        = regexp.MustCompile(`::(text|date)`)
	reToChar      = regexp.MustCompile(`to_char\(date, 'YYYY-MM-DD'\)`)
	rePlaceholder = regexp.MustCompile(`\$([0-9]+)`)
)

// sqliteForm rewrites a query for SQLite: numbered ?n placeholders, and no
// casts (decimals and dates are stored as text there).
func sqliteForm(q string) string {
	q = reCast.ReplaceAllString(q, "")
	q = reToChar.ReplaceAllString(q, "date")
	return rePlaceholder.ReplaceAllString(q, "?$1")
}

// New prepares the read queries on db. Close releases them.
func New(ctx context.Context, db *database.DB) (*Store, error) {
	s := &Store{db: db.Bun.DB, pool: db.Pool, pg: db.IsPostgres(), stmts: make(map[queryName]*sql.Stmt, len(queries))}
	names := make([]queryName, 0, len(queries)+len(pgQueries))
	for name := range queries {
		names = append(names, name)
	}
	if s.pg {
		for name := range pgQueries {
			names = append(names, name)
		}
	}
	for _, name := range names {
		q := pgForm(name)
		if !s.pg {
			q = sqliteForm(q)
		}
		st, err := s.db.PrepareContext(ctx, q)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("prepare query %d: %w", name, err)
		}
		s.stmts[name] = st
	}
	return s, nil
}

// Close releases the prepared statements (not the database).
func (s *Store) Close() {
	for _, st := range s.stmts {
		st.Close()
	}
}

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

// Meta returns the organization's snapshot time and whether accountID (if
// not empty) is one of its accounts, in one round trip.
func (s *Store) Meta(ctx context.Context, orgID, accountID string) (Meta, error) {
	var (
		m     Meta
		asOf  NullTime
		count int64
		err   error
	)
	if accountID == "" {
		err = s.stmts[qMeta].QueryRowContext(ctx, orgID).Scan(&asOf, &count)
	} else {
		err = s.stmts[qMetaAccount].QueryRowContext(ctx, orgID, accountID).Scan(&asOf, &count)
	}
	if err != nil {
		return m, fmt.Errorf("read snapshot meta: %w", err)
	}
	m.DataAsOf = asOf.Time
	m.AccountFound = count > 0
	return m, nil
}

// Accounts returns a page of the organization's accounts ordered by id.
func (s *Store) Accounts(ctx context.Context, orgID string, p ListParams) ([]AccountRow, error) {
	var rows *sql.Rows
	var err error
	if p.AccountID == "" {
		rows, err = s.stmts[qAccounts].QueryContext(ctx, orgID, p.Limit, p.Offset)
	} else {
		rows, err = s.stmts[qAccountsByAccount].QueryContext(ctx, orgID, p.Limit, p.Offset, p.AccountID)
	}
	if err != nil {
		return nil, fmt.Errorf("list accounts: %w", err)
	}
	defer rows.Close()
	out := make([]AccountRow, 0, p.Limit)
	for rows.Next() {
		var r AccountRow
		if err := rows.Scan(&r.ID, &r.AccountName, &r.Currency, &r.Timezone, &r.IsActive, &r.LastSyncAt); err != nil {
			return nil, fmt.Errorf("list accounts: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list accounts: %w", err)
	}
	return out, nil
}

// Campaigns returns a page of the organization's campaigns ordered by id.
func (s *Store) Campaigns(ctx context.Context, orgID string, p ListParams) ([]CampaignRow, error) {
	var rows *sql.Rows
	var err error
	if p.AccountID == "" {
		rows, err = s.stmts[qCampaigns].QueryContext(ctx, orgID, p.Limit, p.Offset)
	} else {
		rows, err = s.stmts[qCampaignsByAccount].QueryContext(ctx, orgID, p.Limit, p.Offset, p.AccountID)
	}
	if err != nil {
		return nil, fmt.Errorf("list campaigns: %w", err)
	}
	defer rows.Close()
	out := make([]CampaignRow, 0, p.Limit)
	for rows.Next() {
		var r CampaignRow
		if err := rows.Scan(&r.ID, &r.PlatformAdAccountID, &r.Name, &r.Objective, &r.Status, &r.EffectiveStatus,
			&r.DailyBudget, &r.LifetimeBudget, &r.SyncedAt, &r.Currency, &r.Timezone); err != nil {
			return nil, fmt.Errorf("list campaigns: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list campaigns: %w", err)
	}
	return out, nil
}

// Insights returns a page of the organization's daily insights between
// p.From and p.To, ordered by date descending, then id.
func (s *Store) Insights(ctx context.Context, orgID string, p ListParams) ([]InsightRow, error) {
	var rows *sql.Rows
	var err error
	if p.AccountID == "" {
		rows, err = s.stmts[qInsights].QueryContext(ctx, orgID, p.Limit, p.Offset, p.From, p.To)
	} else {
		rows, err = s.stmts[qInsightsByAccount].QueryContext(ctx, orgID, p.Limit, p.Offset, p.From, p.To, p.AccountID)
	}
	if err != nil {
		return nil, fmt.Errorf("list insights: %w", err)
	}
	defer rows.Close()
	out := make([]InsightRow, 0, p.Limit)
	for rows.Next() {
		var r InsightRow
		if err := rows.Scan(&r.ID, &r.PlatformAdAccountID, &r.AttributionWindow, &r.CampaignID,
			&r.Date, &r.SyncedAt, &r.Currency, &r.Timezone, &r.PurchaseMeasurement,
			&r.Spend, &r.CTR, &r.CPC, &r.CPM, &r.Impressions, &r.Reach, &r.Clicks,
			&r.Purchases, &r.PurchaseValue, &r.ROAS); err != nil {
			return nil, fmt.Errorf("list insights: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list insights: %w", err)
	}
	return out, nil
}

// NullTime scans a nullable time stored as timestamptz (PostgreSQL) or as
// text written by bun or in RFC 3339 (SQLite). Time is in UTC.
type NullTime struct {
	Time  time.Time
	Valid bool
}

// timeLayouts are the text forms NullTime accepts: bun's SQLite form, then RFC 3339.
var timeLayouts = []string{"2006-01-02 15:04:05.999999999-07:00", time.RFC3339Nano, "2006-01-02 15:04:05.999999999"}

// Scan implements sql.Scanner.
func (n *NullTime) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		*n = NullTime{}
		return nil
	case time.Time:
		*n = NullTime{Time: x.UTC(), Valid: true}
		return nil
	case string:
		return n.parse(x)
	case []byte:
		return n.parse(string(x))
	}
	return fmt.Errorf("scan time: unsupported type %T", v)
}

func (n *NullTime) parse(s string) error {
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			*n = NullTime{Time: t.UTC(), Valid: true}
			return nil
		}
	}
	return errors.New("scan time: unrecognized time text")
}

// Queries returns the read queries as PostgreSQL runs them (the list
// queries in their meta form), by name, for plan checks.
func Queries() map[string]string {
	names := map[queryName]string{qMeta: "meta", qMetaAccount: "meta+account", qAccounts: "accounts",
		qAccountsByAccount: "accounts?accountId", qCampaigns: "campaigns", qCampaignsByAccount: "campaigns?accountId",
		qInsights: "insights", qInsightsByAccount: "insights?accountId",
		qInsightsSeek: "insights (seek)", qInsightsByAccountSeek: "insights?accountId (seek)"}
	out := make(map[string]string, len(names))
	for k, name := range names {
		out[name] = pgForm(k)
		if q, ok := pgPageForms[k]; ok {
			out[name] = q
		}
	}
	return out
}
