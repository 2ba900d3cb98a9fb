-- Narrow key index of insights_daily for the "seek" of an insights page: the
-- row at the requested offset is found by an index-only scan of this index,
-- which holds only the key (about a quarter of the covering index's pages),
-- and the page is then read from that row on through the covering index.
-- See internal/store/queries/postgres/insights_seek.sql and api-server/README.md, Performance.
CREATE INDEX IF NOT EXISTS insights_daily_org_date_id_key_idx ON insights_daily (organization_id, date DESC, id);
