-- Key rolls (DESIGN §6, keys.Manager.Roll): a key replaced by a new one
-- names its successor; the audit trail records the roll. SQLite cannot
-- change a CHECK constraint, so the audit table is copied into a new one.
ALTER TABLE developer_keys ADD COLUMN replaced_by_key_id TEXT;
--bun:split
CREATE TABLE developer_key_audit_v2 (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    organization_id TEXT NOT NULL,
    key_id          TEXT NOT NULL,
    actor_user_id   TEXT NOT NULL,
    action          TEXT NOT NULL CHECK (action IN ('create', 'revoke', 'roll')),
    at              TEXT NOT NULL
);
--bun:split
INSERT INTO developer_key_audit_v2 (id, organization_id, key_id, actor_user_id, action, at)
    SELECT id, organization_id, key_id, actor_user_id, action, at FROM developer_key_audit;
--bun:split
DROP TABLE developer_key_audit;
--bun:split
ALTER TABLE developer_key_audit_v2 RENAME TO developer_key_audit;
--bun:split
CREATE INDEX IF NOT EXISTS developer_key_audit_organization_idx ON developer_key_audit (organization_id, at);
