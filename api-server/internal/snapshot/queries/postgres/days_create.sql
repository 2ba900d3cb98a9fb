-- The (organization, account, day) keys this import touched: each written
-- or removed row's day after the write and, for a row that moved, before it.
CREATE TEMP TABLE svc_import_days ON COMMIT DROP AS
SELECT DISTINCT organization_id, account_id, date FROM (
    SELECT organization_id, account_id, date FROM svc_import_touched
    UNION ALL
    SELECT organization_id, old_account_id, old_date FROM svc_import_touched WHERE old_date IS NOT NULL) AS t
