-- insight_freshness: postgres/insight_freshness.sql on SQLite.
-- ?1 organization.
SELECT committed_at, upserts, deletes, changed_days
FROM insight_imports
WHERE organization_id = ?1
ORDER BY id DESC
LIMIT 1
