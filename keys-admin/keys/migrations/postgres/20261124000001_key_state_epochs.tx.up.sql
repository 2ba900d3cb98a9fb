-- key_state_epochs: per organization, a value that changes in the same
-- transaction as anything that decides whether one of its keys is accepted
-- (a key's expiry, revocation, hash, scopes, organization or issuer; its
-- issuer's membership: role, removal, the row itself). An api-server that
-- remembers a key's state reads the epoch in the request's own statement
-- and reads the state again only when the epoch is not the one it read the
-- state with (keys.Pending), so revocation, expiry changes, demotion and
-- removal count from the next request on, on every replica. last_used_at
-- does not move it. Values come from a sequence: an epoch never comes back,
-- even after its row is deleted (a missing row is read as "unknown").
CREATE SEQUENCE IF NOT EXISTS key_state_epoch_seq;
--bun:split
CREATE TABLE IF NOT EXISTS key_state_epochs (
    organization_id text PRIMARY KEY,
    epoch           bigint NOT NULL
);
--bun:split
CREATE OR REPLACE FUNCTION key_state_epoch_bump(org text) RETURNS void LANGUAGE sql AS $$
    INSERT INTO key_state_epochs (organization_id, epoch) VALUES (org, nextval('key_state_epoch_seq'))
    ON CONFLICT (organization_id) DO UPDATE SET epoch = EXCLUDED.epoch
$$;
--bun:split
CREATE OR REPLACE FUNCTION key_state_epoch_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM key_state_epoch_bump(OLD.organization_id);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM key_state_epoch_bump(NEW.organization_id);
    END IF;
    RETURN NULL;
END
$$;
--bun:split
CREATE OR REPLACE FUNCTION key_state_epoch_all() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE key_state_epochs SET epoch = nextval('key_state_epoch_seq');
    RETURN NULL;
END
$$;
--bun:split
DROP TRIGGER IF EXISTS key_state_epoch_keys_write ON developer_keys;
--bun:split
CREATE TRIGGER key_state_epoch_keys_write AFTER INSERT OR DELETE ON developer_keys
    FOR EACH ROW EXECUTE FUNCTION key_state_epoch_row();
--bun:split
DROP TRIGGER IF EXISTS key_state_epoch_keys_update ON developer_keys;
--bun:split
CREATE TRIGGER key_state_epoch_keys_update AFTER UPDATE ON developer_keys
    FOR EACH ROW WHEN (
        (OLD.organization_id, OLD.issuer_user_id, OLD.scopes, OLD.key_hash, OLD.expires_at, OLD.revoked_at)
        IS DISTINCT FROM
        (NEW.organization_id, NEW.issuer_user_id, NEW.scopes, NEW.key_hash, NEW.expires_at, NEW.revoked_at))
    EXECUTE FUNCTION key_state_epoch_row();
--bun:split
DROP TRIGGER IF EXISTS key_state_epoch_keys_truncate ON developer_keys;
--bun:split
CREATE TRIGGER key_state_epoch_keys_truncate AFTER TRUNCATE ON developer_keys
    FOR EACH STATEMENT EXECUTE FUNCTION key_state_epoch_all();
--bun:split
DROP TRIGGER IF EXISTS key_state_epoch_members_write ON organization_members;
--bun:split
CREATE TRIGGER key_state_epoch_members_write AFTER INSERT OR DELETE ON organization_members
    FOR EACH ROW EXECUTE FUNCTION key_state_epoch_row();
--bun:split
DROP TRIGGER IF EXISTS key_state_epoch_members_update ON organization_members;
--bun:split
CREATE TRIGGER key_state_epoch_members_update AFTER UPDATE ON organization_members
    FOR EACH ROW WHEN (
        (OLD.organization_id, OLD.user_id, OLD.role, OLD.removed_at)
        IS DISTINCT FROM
        (NEW.organization_id, NEW.user_id, NEW.role, NEW.removed_at))
    EXECUTE FUNCTION key_state_epoch_row();
--bun:split
DROP TRIGGER IF EXISTS key_state_epoch_members_truncate ON organization_members;
--bun:split
CREATE TRIGGER key_state_epoch_members_truncate AFTER TRUNCATE ON organization_members
    FOR EACH STATEMENT EXECUTE FUNCTION key_state_epoch_all();
--bun:split
-- Organizations with keys or members before this migration get their epoch now.
INSERT INTO key_state_epochs (organization_id, epoch)
    SELECT organization_id, nextval('key_state_epoch_seq')
    FROM (SELECT organization_id FROM developer_keys UNION SELECT organization_id FROM organization_members) AS o
ON CONFLICT (organization_id) DO NOTHING;
