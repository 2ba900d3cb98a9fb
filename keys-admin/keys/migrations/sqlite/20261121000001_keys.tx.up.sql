-- organizations and organization_members stand in for the host platform's own tables.
-- Times are TEXT in one UTC format written by bun, so they compare as text.
CREATE TABLE IF NOT EXISTS organizations (
    id                  TEXT PRIMARY KEY,
    name                TEXT NOT NULL DEFAULT '',
    subscription_status TEXT NOT NULL CHECK (subscription_status IN ('trialing', 'active', 'canceled')),
    trial_ends_at       TEXT,
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL
);
--bun:split
CREATE TABLE IF NOT EXISTS organization_members (
    organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id         TEXT NOT NULL,
    role            TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    removed_at      TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    PRIMARY KEY (organization_id, user_id)
);
--bun:split
CREATE TABLE IF NOT EXISTS developer_keys (
    id                 TEXT PRIMARY KEY,
    organization_id    TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    issuer_user_id     TEXT NOT NULL,
    name               TEXT NOT NULL,
    scopes             TEXT NOT NULL,
    key_hash           BLOB NOT NULL,
    hint               TEXT NOT NULL,
    created_at         TEXT NOT NULL,
    expires_at         TEXT NOT NULL,
    revoked_at         TEXT,
    revoked_by_user_id TEXT,
    last_used_at       TEXT
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS developer_keys_key_hash_key ON developer_keys (key_hash);
--bun:split
CREATE INDEX IF NOT EXISTS developer_keys_organization_idx ON developer_keys (organization_id, created_at);
--bun:split
CREATE TABLE IF NOT EXISTS developer_key_audit (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    organization_id TEXT NOT NULL,
    key_id          TEXT NOT NULL,
    actor_user_id   TEXT NOT NULL,
    action          TEXT NOT NULL CHECK (action IN ('create', 'revoke')),
    at              TEXT NOT NULL
);
--bun:split
CREATE INDEX IF NOT EXISTS developer_key_audit_organization_idx ON developer_key_audit (organization_id, at);
