-- See the PostgreSQL migration of the same name (issue 43): the day
-- versions of an organization by day, for its insights pages' ETags.
CREATE INDEX IF NOT EXISTS insight_day_versions_org_date_idx ON insight_day_versions (organization_id, date, version);
