-- Stored insight rows repeat their account's platform id, currency and time
-- zone: rows of a staged account that differ take the account's (updated_at:
-- ?0, the import time) and are logged as changed (their day stays). Run
-- after the upsert and the complete windows, so it writes only rows the
-- document does not carry, of the accounts account_copies_changed.sql found.
WITH up AS (
    UPDATE insights_daily AS d SET platform_ad_account_id = a.platform_ad_account_id, currency = a.currency,
        timezone = a.timezone, updated_at = ?0
    FROM svc_import_accounts a JOIN svc_import_copies c ON c.id = a.id
    WHERE d.organization_id = a.organization_id AND d.account_id = a.id
      AND (d.platform_ad_account_id, d.currency, d.timezone) IS DISTINCT FROM (a.platform_ad_account_id, a.currency, a.timezone)
    RETURNING d.id, d.organization_id, d.account_id, d.date),
log AS (
    INSERT INTO insight_changes (organization_id, insight_id, account_id, date, kind)
    SELECT organization_id, id, account_id, date, 'upsert' FROM up)
INSERT INTO svc_import_days (organization_id, account_id, date)
SELECT DISTINCT organization_id, account_id, date FROM up
ON CONFLICT DO NOTHING
