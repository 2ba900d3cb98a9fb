-- Stored insight rows repeat their account's platform id, currency and time
-- zone: rows of a staged account that differ take the account's, and are
-- recorded as changed (their day stays).
WITH up AS (
    UPDATE insights_daily AS d SET platform_ad_account_id = a.platform_ad_account_id, currency = a.currency,
        timezone = a.timezone
    FROM svc_import_accounts a
    WHERE d.organization_id = a.organization_id AND d.account_id = a.id
      AND (d.platform_ad_account_id, d.currency, d.timezone) IS DISTINCT FROM (a.platform_ad_account_id, a.currency, a.timezone)
    RETURNING d.id, d.organization_id, d.account_id, d.date)
INSERT INTO svc_import_touched (insight_id, organization_id, account_id, date, old_account_id, old_date, kind, stage)
SELECT id, organization_id, account_id, date, account_id, date, 'upsert', 1 FROM up
