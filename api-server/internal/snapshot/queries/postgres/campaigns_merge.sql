-- The campaigns' upsert (merge.go), with their account's organization,
-- platform id, currency and time zone: as accounts_merge.sql, version
-- 'campaigns'. Budgets are decimals (compared as text). ?0: the import time.
WITH up AS (
    INSERT INTO campaigns AS d (id, name, objective, status, effective_status, daily_budget, lifetime_budget,
        synced_at, account_id, raw_payload, organization_id, platform_ad_account_id, currency, timezone, updated_at)
    SELECT s.id, s.name, s.objective, s.status, s.effective_status, CAST(s.daily_budget AS numeric),
        CAST(s.lifetime_budget AS numeric), s.synced_at, s.account_id, s.raw_payload, a.organization_id,
        a.platform_ad_account_id, a.currency, a.timezone, CAST(?0 AS timestamptz)
    FROM svc_import_campaigns s JOIN ad_accounts a ON a.id = s.account_id
    ON CONFLICT (id) DO UPDATE SET name = excluded.name, objective = excluded.objective, status = excluded.status,
        effective_status = excluded.effective_status, daily_budget = excluded.daily_budget,
        lifetime_budget = excluded.lifetime_budget, synced_at = excluded.synced_at,
        account_id = excluded.account_id, raw_payload = excluded.raw_payload,
        platform_ad_account_id = excluded.platform_ad_account_id, currency = excluded.currency,
        timezone = excluded.timezone, updated_at = excluded.updated_at
    WHERE (d.name, d.objective, d.status, d.effective_status, d.daily_budget::text, d.lifetime_budget::text,
           d.synced_at, d.account_id, d.raw_payload, d.platform_ad_account_id, d.currency, d.timezone)
        IS DISTINCT FROM (excluded.name, excluded.objective, excluded.status, excluded.effective_status,
           excluded.daily_budget::text, excluded.lifetime_budget::text, excluded.synced_at, excluded.account_id,
           excluded.raw_payload, excluded.platform_ad_account_id, excluded.currency, excluded.timezone)
    RETURNING d.organization_id)
INSERT INTO svc_import_versions (organization_id, resource)
SELECT DISTINCT organization_id, 'campaigns' FROM up
