-- The sums of the touched days computed again from their rows, in key
-- order: the definition of insights_daily_day_sums (migration
-- 20261129110000) over the set of days at once (the property test holds
-- both to the rows); and, from the same sums, the row count of each touched
-- (organization, account, day), 0 for a day whose rows are all gone.
WITH s AS (
    SELECT i.organization_id, i.account_id, coalesce(i.campaign_id, '') AS campaign_key, i.date, i.currency,
        count(*) AS n, sum(i.spend) AS spend, sum(i.impressions)::bigint AS impressions, sum(i.clicks)::bigint AS clicks,
        count(*) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchases IS NOT NULL) AS purchase_rows,
        sum(i.purchases::numeric) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchases IS NOT NULL) AS purchases,
        count(*) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchase_value IS NOT NULL) AS purchase_value_rows,
        sum(i.purchase_value::numeric) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchase_value IS NOT NULL) AS purchase_value,
        sum(i.spend) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchase_value IS NOT NULL) AS value_spend
    FROM svc_import_days k
    JOIN insights_daily i ON i.organization_id = k.organization_id AND i.account_id = k.account_id AND i.date = k.date
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
