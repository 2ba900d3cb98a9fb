-- See postgres/accounts_merge.sql. ?0: the import time.
INSERT INTO ad_accounts AS d (id, account_name, currency, timezone, is_active, last_sync_at, organization_id,
    platform_ad_account_id, access_token_encrypted, raw_payload, updated_at)
SELECT s.id, s.account_name, s.currency, s.timezone, s.is_active, s.last_sync_at, s.organization_id,
    s.platform_ad_account_id, s.access_token_encrypted, s.raw_payload, ?0
FROM svc_import_accounts s WHERE true
ON CONFLICT (id) DO UPDATE SET account_name = excluded.account_name, currency = excluded.currency,
    timezone = excluded.timezone, is_active = excluded.is_active, last_sync_at = excluded.last_sync_at,
    platform_ad_account_id = excluded.platform_ad_account_id,
    access_token_encrypted = excluded.access_token_encrypted, raw_payload = excluded.raw_payload,
    updated_at = excluded.updated_at
WHERE (d.account_name, d.currency, d.timezone, d.is_active, d.last_sync_at, d.platform_ad_account_id,
       d.access_token_encrypted, d.raw_payload)
    IS DISTINCT FROM (excluded.account_name, excluded.currency, excluded.timezone, excluded.is_active,
       excluded.last_sync_at, excluded.platform_ad_account_id, excluded.access_token_encrypted, excluded.raw_payload)
