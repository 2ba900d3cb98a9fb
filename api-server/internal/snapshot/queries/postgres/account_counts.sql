-- The row count of each touched (organization, account, day): the sum of
-- its sums' row counts, just computed from the rows (sums_insert.sql); 0
-- for a day whose rows are all gone.
INSERT INTO insights_daily_account_counts AS c (organization_id, account_id, date, n)
SELECT k.organization_id, k.account_id, k.date, coalesce(sum(s.n), 0)::bigint
FROM svc_import_days k
LEFT JOIN insights_daily_sums s ON s.organization_id = k.organization_id AND s.date = k.date AND s.account_id = k.account_id
GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
ON CONFLICT (organization_id, account_id, date) DO UPDATE SET n = excluded.n
