-- The row count of each touched (organization, account, day), from the rows.
INSERT INTO insights_daily_account_counts AS c (organization_id, account_id, date, n)
SELECT k.organization_id, k.account_id, k.date,
    (SELECT count(*) FROM insights_daily i
     WHERE i.organization_id = k.organization_id AND i.account_id = k.account_id AND i.date = k.date)
FROM svc_import_days AS k ORDER BY 1, 2, 3
ON CONFLICT (organization_id, account_id, date) DO UPDATE SET n = excluded.n
