-- The sums of the touched days computed again, in key order: the
-- definition of insights_daily_day_sums (migration 20261129110000) over the
-- set of days at once (the property test holds both to the rows); and, from
-- the same sums, the row count of each touched (organization, account,
-- day), 0 for a day whose rows are all gone.
--
-- A touched day that had no row before this import (its count, read here
-- before this statement writes it, is 0 or absent: a fresh day) holds
-- exactly the rows this import staged for it, so its sums are taken from
-- the staging table (svc_import_insights, with each row's organization and
-- currency from its account, as insights_merge.sql writes them) instead of
-- being read back from insights_daily: a fresh import no longer reads its
-- rows twice (issue 45's import bench). Every other day is read from
-- insights_daily, which holds the rows this import left unchanged.
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
        sum(i.spend) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchase_value IS NOT NULL) AS value_spend
    FROM k
    CROSS JOIN LATERAL ( -- by index, day by day: none at all for a fresh import
        SELECT * FROM insights_daily i
        WHERE i.organization_id = k.organization_id AND i.account_id = k.account_id AND i.date = k.date) AS i
    WHERE NOT k.fresh
    GROUP BY 1, 2, 3, 4, 5
    UNION ALL
    SELECT a.organization_id, i.account_id, coalesce(i.campaign_id, ''), i.date, a.currency,
        count(*), sum(CAST(i.spend AS numeric)), sum(i.impressions)::bigint, sum(i.clicks)::bigint,
        count(*) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchases IS NOT NULL),
        sum(i.purchases::numeric) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchases IS NOT NULL),
        count(*) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchase_value IS NOT NULL),
        sum(i.purchase_value::numeric) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchase_value IS NOT NULL),
        sum(CAST(i.spend AS numeric)) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchase_value IS NOT NULL)
    FROM svc_import_insights i
    JOIN ad_accounts a ON a.id = i.account_id
    JOIN k ON k.organization_id = a.organization_id AND k.account_id = i.account_id AND k.date = i.date
    WHERE k.fresh
    GROUP BY 1, 2, 3, 4, 5),
sums AS (
    INSERT INTO insights_daily_sums
    SELECT * FROM s ORDER BY 1, 2, 3, 4, 5)
INSERT INTO insights_daily_account_counts AS c (organization_id, account_id, date, n)
SELECT k.organization_id, k.account_id, k.date, coalesce(x.n, 0)::bigint
FROM svc_import_days k
LEFT JOIN (SELECT organization_id, account_id, date, sum(n) AS n FROM s GROUP BY 1, 2, 3) x
    ON x.organization_id = k.organization_id AND x.account_id = k.account_id AND x.date = k.date
ORDER BY 1, 2, 3
ON CONFLICT (organization_id, account_id, date) DO UPDATE SET n = excluded.n
