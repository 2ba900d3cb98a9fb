-- The row count of each touched (organization, day): its accounts' counts.
INSERT INTO insights_daily_counts AS c (organization_id, date, n)
SELECT a.organization_id, a.date, sum(a.n)::bigint
FROM (SELECT DISTINCT organization_id, date FROM svc_import_days) d
JOIN insights_daily_account_counts a ON a.organization_id = d.organization_id AND a.date = d.date
GROUP BY 1, 2 ORDER BY 1, 2
ON CONFLICT (organization_id, date) DO UPDATE SET n = excluded.n
