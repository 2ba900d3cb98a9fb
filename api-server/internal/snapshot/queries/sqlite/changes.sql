-- See postgres/changes.sql; seq is the AUTOINCREMENT. ?0: the import time.
INSERT INTO insight_changes (organization_id, insight_id, account_id, date, kind, recorded_at)
SELECT organization_id, insight_id, account_id, date, kind, ?0 FROM svc_import_touched ORDER BY n
