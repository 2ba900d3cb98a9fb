-- summary: GET /insights/summary, one page of the groups of the
-- organization's daily insights of level $6 ('account': campaign_id NULL;
-- 'campaign': the others) dated $4 to $5 (inclusive), grouped by $7
-- (total, account, campaign, day, week, month) within one currency, in the
-- API's order (currency, account, campaign in byte order, then the period),
-- each row led by the page's meta (as accounts.sql). Sums are exact:
-- numeric for spend, purchases and purchase values, whose float8 the cast
-- to numeric takes as C's %.15g writes it (openapi.yaml,
-- InsightSummaryGroup); the ratios are computed from these sums in Go
-- (store/summary.go). Purchase figures cover the rows with purchase
-- evidence only, counted beside them.
-- $1 organization, $2 limit, $3 offset (of groups), $4 from, $5 to
-- (YYYY-MM-DD), $6 level, $7 groupBy.
-- Index: insights_daily_org_date_id_idx (organization_id, date DESC, id),
-- which covers every column read: an index-only range scan of the window.
WITH g AS (
    SELECT
        currency,
        CASE WHEN $7::text IN ('account', 'campaign') THEN account_id END AS account_id,
        CASE WHEN $7::text = 'campaign' THEN campaign_id END AS campaign_id,
        CASE $7::text
            WHEN 'day' THEN date
            WHEN 'week' THEN date_trunc('week', date::timestamp)::date
            WHEN 'month' THEN date_trunc('month', date::timestamp)::date
        END AS period_start,
        count(*) AS n_rows,
        count(DISTINCT date) AS n_days,
        sum(spend) AS spend,
        sum(impressions) AS impressions,
        sum(clicks) AS clicks,
        count(*) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchases IS NOT NULL) AS purchase_rows,
        sum(purchases::numeric) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchases IS NOT NULL) AS purchases,
        count(*) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchase_value IS NOT NULL) AS purchase_value_rows,
        sum(purchase_value::numeric) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchase_value IS NOT NULL) AS purchase_value,
        sum(spend) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchase_value IS NOT NULL) AS value_spend
    FROM insights_daily
    WHERE organization_id = $1 AND date >= $4::date AND date <= $5::date
      AND (campaign_id IS NOT NULL) = ($6::text = 'campaign')
    GROUP BY 1, 2, 3, 4
)
SELECT
    (SELECT data_as_of FROM organization_snapshots WHERE organization_id = $1) AS data_as_of,
    1::bigint AS account_found,
    (SELECT epoch FROM key_state_epochs WHERE organization_id = $1) AS key_epoch,
    currency, account_id, campaign_id, to_char(period_start, 'YYYY-MM-DD') AS period_start,
    n_rows, n_days, spend::text AS spend, impressions::bigint AS impressions, clicks::bigint AS clicks,
    purchase_rows, purchases::text AS purchases, purchase_value_rows, purchase_value::text AS purchase_value,
    value_spend::text AS value_spend
FROM g
ORDER BY currency COLLATE "C", account_id COLLATE "C", campaign_id COLLATE "C", g.period_start
LIMIT $2 OFFSET $3
