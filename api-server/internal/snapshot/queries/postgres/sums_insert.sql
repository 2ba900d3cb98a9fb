-- The sums of the touched days computed again from their rows, in key
-- order: the definition of insights_daily_day_sums (migration
-- 20261129110000) over the set of days at once (a join the planner may run
-- as a hash join; the property test holds both to the rows).
INSERT INTO insights_daily_sums
SELECT i.organization_id, i.account_id, coalesce(i.campaign_id, ''), i.date, i.currency,
    count(*), sum(i.spend), sum(i.impressions)::bigint, sum(i.clicks)::bigint,
    count(*) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchases IS NOT NULL),
    sum(i.purchases::numeric) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchases IS NOT NULL),
    count(*) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchase_value IS NOT NULL),
    sum(i.purchase_value::numeric) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchase_value IS NOT NULL),
    sum(i.spend) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchase_value IS NOT NULL)
FROM svc_import_days k
JOIN insights_daily i ON i.organization_id = k.organization_id AND i.account_id = k.account_id AND i.date = k.date
GROUP BY 1, 2, 3, 4, 5
ORDER BY 1, 2, 3, 4, 5
