-- The organization's import record (CONTRACT-45: insight_imports): when the
-- import's work ended, the rows it changed and removed, and the days whose
-- version advanced. ?0: the organization.
INSERT INTO insight_imports (organization_id, committed_at, upserts, deletes, changed_days)
SELECT ?0, clock_timestamp(),
    (SELECT count(*) FROM insight_changes WHERE organization_id = ?0 AND txid = pg_current_xact_id() AND kind = 'upsert'),
    (SELECT count(*) FROM insight_changes WHERE organization_id = ?0 AND txid = pg_current_xact_id() AND kind = 'delete'),
    coalesce((SELECT jsonb_agg(d ORDER BY d) FROM (
        SELECT DISTINCT to_char(date, 'YYYY-MM-DD') AS d FROM svc_import_days WHERE organization_id = ?0) AS x),
        '[]'::jsonb)
