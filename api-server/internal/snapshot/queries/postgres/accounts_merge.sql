-- The accounts' upsert (merge.go): a stored account is rewritten only when
-- a value differs, and each organization with an account added or
-- rewritten is recorded in svc_import_versions (its 'accounts' version
-- advances). Columns: schema's (TestMergeColumns). ?0: the import time.
WITH up AS (
    INSERT INTO ad_accounts AS d (id, account_name, currency, timezone, is_active, last_sync_at, organization_id,
        platform_ad_account_id, access_token_encrypted, raw_payload, updated_at)
    SELECT s.id, s.account_name, s.currency, s.timezone, s.is_active, s.last_sync_at, s.organization_id,
        s.platform_ad_account_id, s.access_token_encrypted, s.raw_payload, CAST(?0 AS timestamptz)
    FROM svc_import_accounts s
    ON CONFLICT (id) DO UPDATE SET account_name = excluded.account_name, currency = excluded.currency,
        timezone = excluded.timezone, is_active = excluded.is_active, last_sync_at = excluded.last_sync_at,
        platform_ad_account_id = excluded.platform_ad_account_id,
        access_token_encrypted = excluded.access_token_encrypted, raw_payload = excluded.raw_payload,
        updated_at = excluded.updated_at
    WHERE (d.account_name, d.currency, d.timezone, d.is_active, d.last_sync_at, d.platform_ad_account_id,
           d.access_token_encrypted, d.raw_payload)
        IS DISTINCT FROM (excluded.account_name, excluded.currency, excluded.timezone, excluded.is_active,
           excluded.last_sync_at, excluded.platform_ad_account_id, excluded.access_token_encrypted, excluded.raw_payload)
    RETURNING d.organization_id)
INSERT INTO svc_import_versions (organization_id, resource)
SELECT DISTINCT organization_id, 'accounts' FROM up
