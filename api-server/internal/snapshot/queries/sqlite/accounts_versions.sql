-- See postgres/accounts_merge.sql: on SQLite the organizations whose
-- accounts the upsert adds or rewrites are recorded first.
INSERT INTO svc_import_versions (organization_id, resource)
SELECT DISTINCT s.organization_id, 'accounts' FROM svc_import_accounts s LEFT JOIN ad_accounts d ON d.id = s.id
WHERE d.id IS NULL OR (d.account_name, d.currency, d.timezone, d.is_active, d.last_sync_at, d.platform_ad_account_id,
       d.access_token_encrypted, d.raw_payload)
    IS DISTINCT FROM (s.account_name, s.currency, s.timezone, s.is_active, s.last_sync_at, s.platform_ad_account_id,
       s.access_token_encrypted, s.raw_payload)
