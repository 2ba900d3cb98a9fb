-- Stored campaigns repeat their account's platform id, currency and time
-- zone: see account_copies.sql.
UPDATE campaigns AS c SET platform_ad_account_id = a.platform_ad_account_id, currency = a.currency,
    timezone = a.timezone
FROM svc_import_accounts a
WHERE c.organization_id = a.organization_id AND c.account_id = a.id
  AND (c.platform_ad_account_id, c.currency, c.timezone) IS DISTINCT FROM (a.platform_ad_account_id, a.currency, a.timezone)
