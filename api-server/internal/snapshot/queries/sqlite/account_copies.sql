-- See postgres/account_copies.sql. ?0: the import time.
UPDATE insights_daily AS d SET platform_ad_account_id = a.platform_ad_account_id, currency = a.currency,
    timezone = a.timezone, updated_at = ?0
FROM svc_import_accounts a JOIN svc_import_copies c ON c.id = a.id
WHERE d.organization_id = a.organization_id AND d.account_id = a.id
  AND (d.platform_ad_account_id, d.currency, d.timezone) IS DISTINCT FROM (a.platform_ad_account_id, a.currency, a.timezone)
