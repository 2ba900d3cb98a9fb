-- See postgres/windows_touched.sql: on SQLite the rows are recorded first,
-- then removed (windows_remove.sql).
INSERT INTO svc_import_touched (insight_id, organization_id, account_id, date, old_account_id, old_date, kind, stage)
SELECT DISTINCT d.id, d.organization_id, d.account_id, d.date, d.account_id, d.date, 'delete', 3
FROM insights_daily d JOIN svc_import_complete w ON d.account_id = w.account_id AND d.date BETWEEN w.date_from AND w.date_to
WHERE d.id NOT IN (SELECT id FROM svc_import_insights)
