-- organizations and organization_members stand in for the host platform's own tables.
CREATE TABLE IF NOT EXISTS organizations (
    id                  text PRIMARY KEY,
    name                text NOT NULL DEFAULT '',
    subscription_status text NOT NULL CHECK (subscription_status IN ('trialing', 'active', 'canceled')),
    trial_ends_at       timestamptz,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL
);
--bun:split
CREATE TABLE IF NOT EXISTS organization_members (
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id         text NOT NULL,
    role            text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    removed_at      timestamptz,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    PRIMARY KEY (organization_id, user_id)
);
--bun:split
CREATE TABLE IF NOT EXISTS developer_keys (
    id                 text PRIMARY KEY,
    organization_id    text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    issuer_user_id     text NOT NULL,
    name               text NOT NULL,
    scopes             text NOT NULL,
    key_hash           bytea NOT NULL,
    hint               text NOT NULL,
    created_at         timestamptz NOT NULL,
    expires_at         timestamptz NOT NULL,
    revoked_at         timestamptz,
    revoked_by_user_id text,
    last_used_at       timestamptz
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS developer_keys_key_hash_key ON developer_keys (key_hash);
--bun:split
CREATE INDEX IF NOT EXISTS developer_keys_organization_idx ON developer_keys (organization_id, created_at);
--bun:split
CREATE TABLE IF NOT EXISTS developer_key_audit (
    id              bigserial PRIMARY KEY,
    organization_id text NOT NULL,
    key_id          text NOT NULL,
    actor_user_id   text NOT NULL,
    action          text NOT NULL CHECK (action IN ('create', 'revoke')),
    at              timestamptz NOT NULL
);
--bun:split
CREATE INDEX IF NOT EXISTS developer_key_audit_organization_idx ON developer_key_audit (organization_id, at);
