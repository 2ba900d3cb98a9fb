-- What an import changed (DESIGN §4b, §4c): see the PostgreSQL migration of
-- the same name. SQLite has one writer at a time, so the change log's order
-- is a sequence: seq (AUTOINCREMENT, never reused) is the watermark.
CREATE TABLE IF NOT EXISTS insight_changes (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    organization_id TEXT NOT NULL,
    insight_id      TEXT NOT NULL,
    account_id      TEXT NOT NULL,
    date            TEXT NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('upsert', 'delete')),
    recorded_at     TEXT NOT NULL
);
--bun:split
CREATE INDEX IF NOT EXISTS insight_changes_org_seq_idx ON insight_changes (organization_id, seq);
--bun:split
CREATE INDEX IF NOT EXISTS insight_changes_recorded_at_idx ON insight_changes (recorded_at);
--bun:split
CREATE TABLE IF NOT EXISTS insight_change_horizons (
    organization_id TEXT PRIMARY KEY,
    pruned_below    INTEGER NOT NULL,
    pruned_at       TEXT NOT NULL
);
--bun:split
CREATE TABLE IF NOT EXISTS insight_day_versions (
    organization_id TEXT NOT NULL,
    account_id      TEXT NOT NULL,
    date            TEXT NOT NULL,
    version         INTEGER NOT NULL,
    PRIMARY KEY (organization_id, account_id, date)
);
--bun:split
CREATE TABLE IF NOT EXISTS snapshot_versions (
    organization_id TEXT NOT NULL,
    resource        TEXT NOT NULL CHECK (resource IN ('accounts', 'campaigns')),
    version         INTEGER NOT NULL,
    PRIMARY KEY (organization_id, resource)
);
--bun:split
CREATE TABLE IF NOT EXISTS insight_imports (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    organization_id TEXT NOT NULL,
    committed_at    TEXT NOT NULL,
    upserts         INTEGER NOT NULL,
    deletes         INTEGER NOT NULL,
    changed_days    TEXT NOT NULL
);
--bun:split
CREATE INDEX IF NOT EXISTS insight_imports_org_idx ON insight_imports (organization_id, id DESC);
