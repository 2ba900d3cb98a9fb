-- Snapshot tables of the api-server. Every row carries organization_id so that
-- every list query is an index range scan scoped by organization. campaigns and
-- insights_daily repeat their account's platform_ad_account_id, currency and
-- timezone (kept in step by the import) so that list queries need no join.
-- Columns marked NEVER RETURNED must never leave the service.
CREATE TABLE IF NOT EXISTS ad_accounts (
    id                     text PRIMARY KEY,
    organization_id        text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    platform_ad_account_id text NOT NULL,
    account_name           text NOT NULL,
    currency               text NOT NULL,
    timezone               text NOT NULL,
    is_active              boolean NOT NULL,
    last_sync_at           timestamptz,
    access_token_encrypted text,          -- NEVER RETURNED
    raw_payload            jsonb,         -- NEVER RETURNED
    updated_at             timestamptz NOT NULL
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS ad_accounts_org_id_idx ON ad_accounts (organization_id, id);
--bun:split
CREATE TABLE IF NOT EXISTS campaigns (
    id                     text PRIMARY KEY,
    organization_id        text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    account_id             text NOT NULL REFERENCES ad_accounts (id) ON DELETE CASCADE,
    platform_ad_account_id text NOT NULL,
    currency               text NOT NULL,
    timezone               text NOT NULL,
    name                   text NOT NULL,
    objective              text NOT NULL,
    status                 text NOT NULL,
    effective_status       text,
    daily_budget           numeric,
    lifetime_budget        numeric,
    synced_at              timestamptz,
    raw_payload            jsonb,         -- NEVER RETURNED
    updated_at             timestamptz NOT NULL
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS campaigns_org_id_idx ON campaigns (organization_id, id);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS campaigns_org_account_id_idx ON campaigns (organization_id, account_id, id);
--bun:split
CREATE TABLE IF NOT EXISTS insights_daily (
    id                     text PRIMARY KEY,
    organization_id        text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    account_id             text NOT NULL REFERENCES ad_accounts (id) ON DELETE CASCADE,
    campaign_id            text REFERENCES campaigns (id) ON DELETE CASCADE, -- NULL: account-level row
    platform_ad_account_id text NOT NULL,
    currency               text NOT NULL,
    timezone               text NOT NULL,
    date                   date NOT NULL,
    attribution_window     text NOT NULL,
    purchase_measurement   text NOT NULL CHECK (purchase_measurement IN ('reported_purchase_value', 'reported_purchase_count', 'unavailable')),
    spend                  numeric NOT NULL,
    ctr                    numeric NOT NULL,
    cpc                    numeric NOT NULL,
    cpm                    numeric NOT NULL,
    impressions            bigint NOT NULL,
    reach                  bigint NOT NULL,
    clicks                 bigint NOT NULL,
    purchases              double precision,
    purchase_value         double precision,
    roas                   double precision,
    conversions            bigint,        -- NEVER RETURNED (generic conversions are no purchase evidence)
    synced_at              timestamptz,
    raw_payload            jsonb,         -- NEVER RETURNED
    updated_at             timestamptz NOT NULL
);
--bun:split
-- Covering indexes: a page at any offset up to 10000 is an index-only range scan.
CREATE UNIQUE INDEX IF NOT EXISTS insights_daily_org_date_id_idx ON insights_daily (organization_id, date DESC, id)
    INCLUDE (account_id, campaign_id, platform_ad_account_id, currency, timezone, attribution_window,
             purchase_measurement, spend, ctr, cpc, cpm, impressions, reach, clicks, purchases,
             purchase_value, roas, synced_at);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS insights_daily_org_account_date_id_idx ON insights_daily (organization_id, account_id, date DESC, id)
    INCLUDE (campaign_id, platform_ad_account_id, currency, timezone, attribution_window,
             purchase_measurement, spend, ctr, cpc, cpm, impressions, reach, clicks, purchases,
             purchase_value, roas, synced_at);
--bun:split
CREATE INDEX IF NOT EXISTS insights_daily_campaign_idx ON insights_daily (campaign_id);
--bun:split
-- Lead contacts are stored for other parts of the platform and NEVER RETURNED by the API.
CREATE TABLE IF NOT EXISTS lead_contacts (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    account_id      text NOT NULL REFERENCES ad_accounts (id) ON DELETE CASCADE,
    email           text,
    phone           text,
    updated_at      timestamptz NOT NULL
);
--bun:split
CREATE INDEX IF NOT EXISTS lead_contacts_org_account_idx ON lead_contacts (organization_id, account_id);
--bun:split
-- data_as_of: newest sync time among the organization's snapshot rows, kept by the import.
CREATE TABLE IF NOT EXISTS organization_snapshots (
    organization_id text PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
    data_as_of      timestamptz NOT NULL,
    imported_at     timestamptz NOT NULL
);
