-- The ETag of an organization's insights page or summary (DESIGN §4c,
-- store/queries/postgres/versions_insights.sql) sums the versions of a
-- range of days over all the organization's accounts: this index serves it
-- by (organization, day) instead of walking every account's days
-- (issue 43; the table is the change log's, 20261129100000).
CREATE INDEX IF NOT EXISTS insight_day_versions_org_date_idx ON insight_day_versions (organization_id, date) INCLUDE (version);
