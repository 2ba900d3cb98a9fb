-- SQLite twin of the PostgreSQL migration. Times are TEXT written by bun (UTC),
-- dates TEXT YYYY-MM-DD, decimals TEXT exactly as imported.
-- Snapshot tables of the api-server. Every row carries organization_id so that
-- every list query is an index range scan scoped by organization. campaigns and
-- insights_daily repeat their account's platform_ad_account_id, currency and
-- timezone (kept in step by the import) so that list queries need no join.
-- Columns marked NEVER RETURNED must never leave the service.
CREATE TABLE IF NOT EXISTS ad_accounts (
    id                     TEXT PRIMARY KEY,
    organization_id        TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    platform_ad_account_id TEXT NOT NULL,
    account_name           TEXT NOT NULL,
    currency               TEXT NOT NULL,
    timezone               TEXT NOT NULL,
    is_active              INTEGER NOT NULL,
    last_sync_at           TEXT,
    access_token_encrypted TEXT,          -- NEVER RETURNED
    raw_payload            TEXT,         -- NEVER RETURNED
    updated_at             TEXT NOT NULL
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS ad_accounts_org_id_idx ON ad_accounts (organization_id, id);
--bun:split
CREATE TABLE IF NOT EXISTS campaigns (
    id                     TEXT PRIMARY KEY,
    organization_id        TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    account_id             TEXT NOT NULL REFERENCES ad_accounts (id) ON DELETE CASCADE,
    platform_ad_account_id TEXT NOT NULL,
    currency               TEXT NOT NULL,
    timezone               TEXT NOT NULL,
    name                   TEXT NOT NULL,
    objective              TEXT NOT NULL,
    status                 TEXT NOT NULL,
    effective_status       TEXT,
    daily_budget           TEXT,
    lifetime_budget        TEXT,
    synced_at              TEXT,
    raw_payload            TEXT,         -- NEVER RETURNED
    updated_at             TEXT NOT NULL
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS campaigns_org_id_idx ON campaigns (organization_id, id);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS campaigns_org_account_id_idx ON campaigns (organization_id, account_id, id);
--bun:split
CREATE TABLE IF NOT EXISTS insights_daily (
    id                     TEXT PRIMARY KEY,
    organization_id        TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    account_id             TEXT NOT NULL REFERENCES ad_accounts (id) ON DELETE CASCADE,
    campaign_id            TEXT REFERENCES campaigns (id) ON DELETE CASCADE, -- NULL: account-level row
    platform_ad_account_id TEXT NOT NULL,
    currency               TEXT NOT NULL,
    timezone               TEXT NOT NULL,
    date                   TEXT NOT NULL,
    attribution_window     TEXT NOT NULL,
    purchase_measurement   TEXT NOT NULL CHECK (purchase_measurement IN ('reported_purchase_value', 'reported_purchase_count', 'unavailable')),
    spend                  TEXT NOT NULL,
    ctr                    TEXT NOT NULL,
    cpc                    TEXT NOT NULL,
    cpm                    TEXT NOT NULL,
    impressions            INTEGER NOT NULL,
    reach                  INTEGER NOT NULL,
    clicks                 INTEGER NOT NULL,
    purchases              REAL,
    purchase_value         REAL,
    roas                   REAL,
    conversions            INTEGER,        -- NEVER RETURNED (generic conversions are no purchase evidence)
    synced_at              TEXT,
    raw_payload            TEXT,         -- NEVER RETURNED
    updated_at             TEXT NOT NULL
);
--bun:split
-- SQLite has no INCLUDE: the same keys, range scans scoped by organization.
CREATE UNIQUE INDEX IF NOT EXISTS insights_daily_org_date_id_idx ON insights_daily (organization_id, date DESC, id);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS insights_daily_org_account_date_id_idx ON insights_daily (organization_id, account_id, date DESC, id);
--bun:split
CREATE INDEX IF NOT EXISTS insights_daily_campaign_idx ON insights_daily (campaign_id);
--bun:split
-- Lead contacts are stored for other parts of the platform and NEVER RETURNED by the API.
CREATE TABLE IF NOT EXISTS lead_contacts (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    account_id      TEXT NOT NULL REFERENCES ad_accounts (id) ON DELETE CASCADE,
    email           TEXT,
    phone           TEXT,
    updated_at      TEXT NOT NULL
);
--bun:split
CREATE INDEX IF NOT EXISTS lead_contacts_org_account_idx ON lead_contacts (organization_id, account_id);
--bun:split
-- data_as_of: newest sync time among the organization's snapshot rows, kept by the import.
CREATE TABLE IF NOT EXISTS organization_snapshots (
    organization_id TEXT PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
    data_as_of      TEXT NOT NULL,
    imported_at     TEXT NOT NULL
);
