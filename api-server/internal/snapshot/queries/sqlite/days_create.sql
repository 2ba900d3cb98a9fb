-- See postgres/days_create.sql.
CREATE TEMP TABLE svc_import_days AS
SELECT DISTINCT organization_id, account_id, date FROM (
    SELECT organization_id, account_id, date FROM svc_import_touched
    UNION ALL
    SELECT organization_id, old_account_id, old_date FROM svc_import_touched WHERE old_date IS NOT NULL) AS t
