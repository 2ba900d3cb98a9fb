-- The row count of each touched (organization, day): its accounts' counts.
INSERT INTO insights_daily_counts AS c (organization_id, date, n)
SELECT d.organization_id, d.date,
    (SELECT coalesce(sum(a.n), 0)::bigint FROM insights_daily_account_counts a
     WHERE a.organization_id = d.organization_id AND a.date = d.date)
FROM (SELECT DISTINCT organization_id, date FROM svc_import_days) AS d ORDER BY 1, 2
ON CONFLICT (organization_id, date) DO UPDATE SET n = excluded.n
