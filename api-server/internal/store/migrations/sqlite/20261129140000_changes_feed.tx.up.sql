-- The changes feed's reads: see the PostgreSQL migration of the same name.
CREATE INDEX IF NOT EXISTS insight_changes_insight_idx ON insight_changes (organization_id, insight_id, seq);
--bun:split
CREATE TABLE IF NOT EXISTS api_secrets (
    name   TEXT PRIMARY KEY,
    secret TEXT NOT NULL
);
--bun:split
INSERT OR IGNORE INTO api_secrets (name, secret) VALUES ('sync_tokens', lower(hex(randomblob(32))));
