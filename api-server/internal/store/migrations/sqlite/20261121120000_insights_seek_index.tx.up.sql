-- The PostgreSQL schema's narrow key index of insights_daily, kept here so
-- that both schemas have the same indexes (SQLite reads pages with
-- LIMIT/OFFSET; see the PostgreSQL migration of the same name).
CREATE INDEX IF NOT EXISTS insights_daily_org_date_id_key_idx ON insights_daily (organization_id, date DESC, id);
