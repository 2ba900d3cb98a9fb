-- key_state_epochs_always: the key-state epoch triggers fire in every
-- session_replication_role (security review 2, issue 40). Created plain
-- ENABLE by 20261124000001_key_state_epochs, they did not fire under
-- session_replication_role = replica: the role of a logical replication
-- apply worker (membership fed from the host platform) and of a DBA's bulk
-- fix. A revocation or demotion written so left the epoch as it was, and a
-- process that remembered the key kept accepting it. ENABLE ALWAYS, as the
-- insights triggers are. A write that bypasses triggers altogether
-- (DISABLE TRIGGER, a dropped trigger) is still bounded: an api-server reads
-- a remembered key's full state again at least every --key-recheck
-- (keys.AuthenticatorOptions.Recheck, 30 s by default).
ALTER TABLE developer_keys ENABLE ALWAYS TRIGGER key_state_epoch_keys_write,
    ENABLE ALWAYS TRIGGER key_state_epoch_keys_update,
    ENABLE ALWAYS TRIGGER key_state_epoch_keys_truncate;
--bun:split
ALTER TABLE organization_members ENABLE ALWAYS TRIGGER key_state_epoch_members_write,
    ENABLE ALWAYS TRIGGER key_state_epoch_members_update,
    ENABLE ALWAYS TRIGGER key_state_epoch_members_truncate;
