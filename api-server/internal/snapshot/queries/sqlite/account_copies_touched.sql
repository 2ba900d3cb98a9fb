-- See postgres/account_copies.sql: on SQLite the rows are recorded first
-- (account_copies.sql then updates them).
INSERT INTO svc_import_touched (insight_id, organization_id, account_id, date, old_account_id, old_date, kind, stage)
SELECT d.id, d.organization_id, d.account_id, d.date, d.account_id, d.date, 'upsert', 1
FROM insights_daily d JOIN svc_import_accounts a ON d.organization_id = a.organization_id AND d.account_id = a.id
JOIN svc_import_copies c ON c.id = a.id
WHERE (d.platform_ad_account_id, d.currency, d.timezone) IS DISTINCT FROM (a.platform_ad_account_id, a.currency, a.timezone)
