-- Each touched day's version advances by one (CONTRACT-45:
-- insight_day_versions), in key order (concurrent imports lock in one order).
INSERT INTO insight_day_versions (organization_id, account_id, date, version)
SELECT organization_id, account_id, date, 1 FROM svc_import_days WHERE true ORDER BY 1, 2, 3
ON CONFLICT (organization_id, account_id, date) DO UPDATE SET version = insight_day_versions.version + 1
