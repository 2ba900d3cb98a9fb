-- The sums of the touched days computed again, in key order: the
-- definition of insights_daily_day_sums (migration 20261129110000) over the
-- set of days at once (the property test holds both to the rows); and, from
-- the same sums, the row count and newest sync time of each touched
-- (organization, account, day), 0 and NULL for a day whose rows are all
-- gone (data_as_of.sql reads the sync times).
--
-- A touched day that had no row before this import (its count, read here
-- before this statement writes it, is 0 or absent: a fresh day) holds
-- exactly the rows this import staged for it, so its sums are taken from
-- the staging table (svc_import_insights, with each row's organization and
-- currency from its account, as insights_merge.sql writes them) instead of
-- being read back from insights_daily: a fresh import no longer reads its
-- rows twice (issue 45's import bench). Every other day is read from
-- insights_daily, which holds the rows this import left unchanged.
--
-- Both halves are written for the plan. Stored days are read only when
-- there are any (the EXISTS is evaluated once): at 1,000,000 fresh rows
-- the planner sorted all of insights_daily to merge it with none (2.2 s),
-- and a nested loop that cannot be flattened (OFFSET 0) cost 0.55 s at
-- 100,000. The staged rows are grouped before they are joined to their
-- days (by hash; then the groups are sorted for the insert): at 1,000,000
-- rows, joining them first made two sorts of 1,000,000 rows through
-- 100 MB on disk (sums 6.7 s without the sort of insights_daily, 4.4 s
-- now); at 100,000 the hash of 100,000 one-row groups costs about 0.2 s
-- more than that sort in memory (1.35 s, 1.57 s).
WITH k AS MATERIALIZED (
    SELECT d.organization_id, d.account_id, d.date,
        coalesce((SELECT c.n FROM insights_daily_account_counts c
                  WHERE c.organization_id = d.organization_id AND c.account_id = d.account_id AND c.date = d.date), 0) = 0 AS fresh
    FROM svc_import_days d),
s AS (
    SELECT i.organization_id, i.account_id, coalesce(i.campaign_id, '') AS campaign_key, i.date, i.currency,
        count(*) AS n, sum(i.spend) AS spend, sum(i.impressions)::bigint AS impressions, sum(i.clicks)::bigint AS clicks,
        count(*) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchases IS NOT NULL) AS purchase_rows,
        sum(i.purchases::numeric) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchases IS NOT NULL) AS purchases,
        count(*) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchase_value IS NOT NULL) AS purchase_value_rows,
        sum(i.purchase_value::numeric) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchase_value IS NOT NULL) AS purchase_value,
        sum(i.spend) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchase_value IS NOT NULL) AS value_spend,
        max(i.synced_at) AS synced_at
    FROM k
    CROSS JOIN LATERAL ( -- by index, day by day: none at all for a fresh import
        SELECT * FROM insights_daily i
        WHERE i.organization_id = k.organization_id AND i.account_id = k.account_id AND i.date = k.date) AS i
    WHERE NOT k.fresh AND EXISTS (SELECT FROM k WHERE NOT k.fresh)
    GROUP BY 1, 2, 3, 4, 5
    UNION ALL
    SELECT a.organization_id, g.account_id, g.campaign_key, g.date, a.currency, g.n, g.spend, g.impressions,
        g.clicks, g.purchase_rows, g.purchases, g.purchase_value_rows, g.purchase_value, g.value_spend, g.synced_at
    FROM (SELECT i.account_id, coalesce(i.campaign_id, '') AS campaign_key, i.date,
            count(*) AS n, sum(CAST(i.spend AS numeric)) AS spend, sum(i.impressions)::bigint AS impressions,
            sum(i.clicks)::bigint AS clicks,
            count(*) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchases IS NOT NULL) AS purchase_rows,
            sum(i.purchases::numeric) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchases IS NOT NULL) AS purchases,
            count(*) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchase_value IS NOT NULL) AS purchase_value_rows,
            sum(i.purchase_value::numeric) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchase_value IS NOT NULL) AS purchase_value,
            sum(CAST(i.spend AS numeric)) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchase_value IS NOT NULL) AS value_spend,
            max(i.synced_at) AS synced_at
        FROM svc_import_insights i
        GROUP BY 1, 2, 3) AS g -- grouped before the join: by hash, where the joined rows were sorted
    JOIN ad_accounts a ON a.id = g.account_id
    JOIN k ON k.organization_id = a.organization_id AND k.account_id = g.account_id AND k.date = g.date
    WHERE k.fresh),
sums AS (
    INSERT INTO insights_daily_sums
    SELECT organization_id, account_id, campaign_key, date, currency, n, spend, impressions, clicks, purchase_rows,
        purchases, purchase_value_rows, purchase_value, value_spend
    FROM s ORDER BY 1, 2, 3, 4, 5)
INSERT INTO insights_daily_account_counts AS c (organization_id, account_id, date, n, synced_at)
SELECT k.organization_id, k.account_id, k.date, coalesce(x.n, 0)::bigint, x.synced_at
FROM svc_import_days k
LEFT JOIN (SELECT organization_id, account_id, date, sum(n) AS n, max(synced_at) AS synced_at FROM s GROUP BY 1, 2, 3) x
    ON x.organization_id = k.organization_id AND x.account_id = k.account_id AND x.date = k.date
ORDER BY 1, 2, 3
ON CONFLICT (organization_id, account_id, date) DO UPDATE SET n = excluded.n, synced_at = excluded.synced_at
