-- The organizations whose stored campaigns campaign_copies.sql rewrites
-- (their 'campaigns' version advances); run before it.
INSERT INTO svc_import_versions (organization_id, resource)
SELECT DISTINCT c.organization_id, 'campaigns'
FROM campaigns c JOIN svc_import_accounts a ON c.organization_id = a.organization_id AND c.account_id = a.id
WHERE (c.platform_ad_account_id, c.currency, c.timezone) IS DISTINCT FROM (a.platform_ad_account_id, a.currency, a.timezone)
