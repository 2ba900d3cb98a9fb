-- See postgres/campaigns_merge.sql and sqlite/accounts_versions.sql.
INSERT INTO svc_import_versions (organization_id, resource)
SELECT DISTINCT a.organization_id, 'campaigns'
FROM svc_import_campaigns s JOIN ad_accounts a ON a.id = s.account_id LEFT JOIN campaigns d ON d.id = s.id
WHERE d.id IS NULL OR (d.name, d.objective, d.status, d.effective_status, d.daily_budget, d.lifetime_budget,
       d.synced_at, d.account_id, d.raw_payload, d.platform_ad_account_id, d.currency, d.timezone)
    IS DISTINCT FROM (s.name, s.objective, s.status, s.effective_status, s.daily_budget, s.lifetime_budget,
       s.synced_at, s.account_id, s.raw_payload, a.platform_ad_account_id, a.currency, a.timezone)
