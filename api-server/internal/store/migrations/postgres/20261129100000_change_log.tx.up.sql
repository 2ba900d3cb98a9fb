-- What an import changed (DESIGN §4b, §4c): the change log, the data
-- versions and the organization's import record. The import writes all of
-- them in its own transaction (internal/snapshot); the changes feed, the
-- ETags and the freshness answer read them.
--
-- insight_changes: one entry per insight row whose values an import changed
-- (IS DISTINCT FROM the stored row; an identical re-import records nothing)
-- and per row it removed (a complete window, DESIGN §2a). txid is the
-- writing transaction's id (xid8): a reader takes its snapshot's xmin as the
-- watermark and reads entries with lo <= txid < xmin, every one of which has
-- committed or aborted, so no entry that commits late is skipped (a
-- timestamp watermark would skip it). seq orders the entries of one
-- transaction. The entry names the row; its values are the row's current
-- ones, read by the feed.
CREATE TABLE IF NOT EXISTS insight_changes (
    organization_id text   NOT NULL,
    txid            xid8   NOT NULL DEFAULT pg_current_xact_id(),
    seq             bigint GENERATED ALWAYS AS IDENTITY,
    insight_id      text   NOT NULL,
    account_id      text   NOT NULL,
    date            date   NOT NULL,
    kind            text   NOT NULL CHECK (kind IN ('upsert', 'delete')),
    recorded_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (organization_id, txid, seq)
);
--bun:split
-- Pruning by age (retention, default 35 days) scans this index.
CREATE INDEX IF NOT EXISTS insight_changes_recorded_at_idx ON insight_changes (recorded_at);
--bun:split
-- insight_change_horizons: per organization, the least txid that the log
-- still holds every entry from; a token below it is older than the
-- retention (410). Written by the pruner.
CREATE TABLE IF NOT EXISTS insight_change_horizons (
    organization_id text        PRIMARY KEY,
    pruned_below    xid8        NOT NULL,
    pruned_at       timestamptz NOT NULL
);
--bun:split
-- insight_day_versions: per (organization, account, day), a counter that an
-- import advances by one when a row of that day changes or is removed (never
-- otherwise). Rows are never deleted, so over any set of days the pair
-- (count, sum of versions) changes exactly when a row of those days changed:
-- the data version that an ETag covers (DESIGN §4c).
CREATE TABLE IF NOT EXISTS insight_day_versions (
    organization_id text   NOT NULL,
    account_id      text   NOT NULL,
    date            date   NOT NULL,
    version         bigint NOT NULL,
    PRIMARY KEY (organization_id, account_id, date)
);
--bun:split
-- snapshot_versions: the same counter for the organization's accounts and
-- campaigns, advanced when an import changes one of their returned values.
CREATE TABLE IF NOT EXISTS snapshot_versions (
    organization_id text   NOT NULL,
    resource        text   NOT NULL CHECK (resource IN ('accounts', 'campaigns')),
    version         bigint NOT NULL,
    PRIMARY KEY (organization_id, resource)
);
--bun:split
-- insight_imports: one row per import per organization that it touched:
-- when it committed (the time its transaction ended its work), how many
-- rows it changed and removed, and which days (changed_days: a JSON array of
-- "YYYY-MM-DD", ascending). Freshness reads the newest row.
CREATE TABLE IF NOT EXISTS insight_imports (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    organization_id text        NOT NULL,
    txid            xid8        NOT NULL DEFAULT pg_current_xact_id(),
    committed_at    timestamptz NOT NULL,
    upserts         bigint      NOT NULL,
    deletes         bigint      NOT NULL,
    changed_days    jsonb       NOT NULL
);
--bun:split
CREATE INDEX IF NOT EXISTS insight_imports_org_idx ON insight_imports (organization_id, id DESC);
