-- Key rolls (DESIGN §6, keys.Manager.Roll): a key replaced by a new one
-- names its successor, so that it is rolled once and the page can say so;
-- the audit trail records the roll. Writing replaced_by_key_id does not
-- move the key-state epoch (it does not decide whether a key is accepted);
-- the roll's change of expires_at does.
ALTER TABLE developer_keys ADD COLUMN IF NOT EXISTS replaced_by_key_id text;
--bun:split
ALTER TABLE developer_key_audit DROP CONSTRAINT IF EXISTS developer_key_audit_action_check;
--bun:split
ALTER TABLE developer_key_audit ADD CONSTRAINT developer_key_audit_action_check
    CHECK (action IN ('create', 'revoke', 'roll'));
