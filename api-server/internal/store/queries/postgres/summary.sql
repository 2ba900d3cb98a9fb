-- summary: GET /insights/summary, one page of the groups of the
-- organization's daily insights of level $6 ('account': campaign_id NULL;
-- 'campaign': the others) dated $4 to $5 (inclusive), grouped by $7
-- (total, account, campaign, day, week, month) within one currency, in the
-- API's order (currency, account, campaign in byte order, then the period),
-- each row led by the page's meta (as accounts.sql). The rows are read as
-- their exact per-day sums, insights_daily_sums (one row per organization,
-- account, campaign or '' for account-level rows, day and currency;
-- recomputed for the days an import touches, in its transaction:
-- snapshot's sums_insert.sql): numeric sums of spend, purchases and purchase
-- values (a float8 as its numeric cast, C's %.15g: openapi.yaml,
-- InsightSummaryGroup), with the counts of rows and of rows with purchase
-- evidence; the sum of numeric sums keeps the most decimal places of the
-- rows. The ratios are computed from these sums in Go (server/summary.go).
-- $1 organization, $2 limit, $3 offset (of groups), $4 from, $5 to
-- (YYYY-MM-DD), $6 level, $7 groupBy.
-- Index: insights_daily_sums_org_date_idx (organization_id, date).
WITH g AS (
    SELECT
        currency,
        CASE WHEN $7::text IN ('account', 'campaign', 'account,day', 'campaign,day') THEN account_id END AS account_id,
        CASE WHEN $7::text IN ('campaign', 'campaign,day') THEN campaign_key END AS campaign_id,
        CASE $7::text
            WHEN 'day' THEN date
            WHEN 'account,day' THEN date
            WHEN 'campaign,day' THEN date
            WHEN 'week' THEN date_trunc('week', date::timestamp)::date
            WHEN 'month' THEN date_trunc('month', date::timestamp)::date
        END AS period_start,
        sum(n)::bigint AS n_rows,
        count(DISTINCT date) AS n_days,
        sum(spend) AS spend,
        sum(impressions) AS impressions,
        sum(clicks) AS clicks,
        sum(purchase_rows)::bigint AS purchase_rows,
        sum(purchases) AS purchases,
        sum(purchase_value_rows)::bigint AS purchase_value_rows,
        sum(purchase_value) AS purchase_value,
        sum(value_spend) AS value_spend
    FROM insights_daily_sums
    WHERE organization_id = $1 AND date >= $4::date AND date <= $5::date
      AND (campaign_key <> '') = ($6::text = 'campaign') AND n > 0
    GROUP BY 1, 2, 3, 4
)
SELECT
    (SELECT data_as_of FROM organization_snapshots WHERE organization_id = $1) AS data_as_of,
    1::bigint AS account_found,
    (SELECT epoch FROM key_state_epochs WHERE organization_id = $1) AS key_epoch,
    (SELECT max(id) FROM insight_imports WHERE organization_id = $1) AS data_version,
    currency, account_id, campaign_id, to_char(period_start, 'YYYY-MM-DD') AS period_start,
    n_rows, n_days, spend::text AS spend, impressions::bigint AS impressions, clicks::bigint AS clicks,
    purchase_rows, purchases::text AS purchases, purchase_value_rows, purchase_value::text AS purchase_value,
    value_spend::text AS value_spend
FROM g
ORDER BY currency COLLATE "C", account_id COLLATE "C", campaign_id COLLATE "C", g.period_start
LIMIT $2 OFFSET $3
