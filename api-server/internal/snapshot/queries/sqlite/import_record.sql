-- See postgres/import_record.sql. ?0: the organization, ?1: the time the
-- import's work ended.
INSERT INTO insight_imports (organization_id, committed_at, upserts, deletes, changed_days)
SELECT ?0, ?1,
    (SELECT count(*) FROM svc_import_touched WHERE organization_id = ?0 AND kind = 'upsert'),
    (SELECT count(*) FROM svc_import_touched WHERE organization_id = ?0 AND kind = 'delete'),
    (SELECT json_group_array(d) FROM (
        SELECT DISTINCT date AS d FROM svc_import_days WHERE organization_id = ?0 ORDER BY d))
