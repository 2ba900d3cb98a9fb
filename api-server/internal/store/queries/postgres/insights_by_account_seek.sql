-- insights_by_account_seek: insights_seek.sql for the rows of account $6,
-- positioned by the per-account day counts (insights_daily_account_counts).
-- $1 organization, $2 limit, $3 offset, $4 from, $5 to, $6 account id.
WITH c AS (
    SELECT date, n, sum(n) OVER (ORDER BY date DESC) AS upto
    FROM insights_daily_account_counts
    WHERE organization_id = $1 AND account_id = $6 AND date >= $4::date AND date <= $5::date
),
day AS MATERIALIZED (
    SELECT date, ($3 - (upto - n))::bigint AS skip
    FROM c
    WHERE upto > $3
    ORDER BY date DESC
    LIMIT 1
),
pos AS MATERIALIZED (
    SELECT date, id
    FROM insights_daily
    WHERE organization_id = $1 AND account_id = $6 AND date = (SELECT date FROM day)
    ORDER BY id
    LIMIT 1 OFFSET (SELECT skip FROM day)
)
SELECT
    (SELECT data_as_of FROM organization_snapshots WHERE organization_id = $1) AS data_as_of,
    (SELECT count(*) FROM ad_accounts WHERE organization_id = $1 AND id = $6) AS account_found,
    (SELECT epoch FROM key_state_epochs WHERE organization_id = $1) AS key_epoch,
    (SELECT max(id) FROM insight_imports WHERE organization_id = $1) AS data_version,
    -- generated: Insight columns of i (store/gen, from store/schema; go generate rewrites the lines up to "-- end")
    i.id, i.platform_ad_account_id, i.attribution_window, i.campaign_id,
    to_char(i.date, 'YYYY-MM-DD') AS date, i.synced_at, i.currency, i.timezone,
    i.purchase_measurement, i.spend::text AS spend, i.ctr::text AS ctr,
    i.cpc::text AS cpc, i.cpm::text AS cpm, i.impressions, i.reach, i.clicks,
    i.purchases, i.purchase_value, i.roas
    -- end
FROM insights_daily AS i
WHERE i.organization_id = $1 AND i.account_id = $6 AND i.date >= $4::date
  AND i.date <= (SELECT date FROM pos)
  AND (i.date < (SELECT date FROM pos) OR i.id >= (SELECT id FROM pos))
ORDER BY i.date DESC, i.id
LIMIT $2
