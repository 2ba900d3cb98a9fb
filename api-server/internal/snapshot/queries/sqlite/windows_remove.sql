-- The rows windows_touched.sql recorded as removals.
DELETE FROM insights_daily WHERE id IN (SELECT insight_id FROM svc_import_touched WHERE stage = 3)
