-- insight_freshness: the organization's last import (issue 46; the
-- contract of migration 20261129100000_change_log: freshness is the newest
-- row of insight_imports): when it committed, how many rows it changed and
-- removed, and the days it changed (a JSON array of YYYY-MM-DD, ascending).
-- No row when nothing was imported since the table exists.
-- $1 organization.
-- Index: insight_imports_org_idx (organization_id, id DESC).
SELECT committed_at, upserts, deletes, changed_days::text AS changed_days
FROM insight_imports
WHERE organization_id = $1
ORDER BY id DESC
LIMIT 1
