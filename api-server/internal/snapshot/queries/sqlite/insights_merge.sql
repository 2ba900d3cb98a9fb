-- See postgres/insights_merge.sql: the staged rows that insights_touched.sql
-- recorded. Columns: schema's (TestMergeColumns). ?0: the import time.
INSERT INTO insights_daily AS d (id, account_id, campaign_id, date,
    -- generated: Insight insert columns (store/gen, from store/schema; go generate rewrites the lines up to "-- end")
    attribution_window, purchase_measurement, spend, ctr, cpc, cpm, impressions, reach, clicks, purchases,
    purchase_value, roas,
    -- end
    conversions, synced_at, raw_payload, organization_id, platform_ad_account_id, currency, timezone, updated_at)
SELECT s.id, s.account_id, s.campaign_id, s.date,
    -- generated: Insight select columns of s
    s.attribution_window, s.purchase_measurement, s.spend, s.ctr, s.cpc, s.cpm, s.impressions, s.reach,
    s.clicks, s.purchases, s.purchase_value, s.roas,
    -- end
    s.conversions, s.synced_at, s.raw_payload, a.organization_id, a.platform_ad_account_id, a.currency,
    a.timezone, ?0
FROM svc_import_insights s JOIN ad_accounts a ON a.id = s.account_id
WHERE s.id IN (SELECT insight_id FROM svc_import_touched WHERE stage = 2)
ON CONFLICT (id) DO UPDATE SET account_id = excluded.account_id, campaign_id = excluded.campaign_id,
    date = excluded.date,
    -- generated: Insight set columns
    attribution_window = excluded.attribution_window, purchase_measurement = excluded.purchase_measurement,
    spend = excluded.spend, ctr = excluded.ctr, cpc = excluded.cpc, cpm = excluded.cpm,
    impressions = excluded.impressions, reach = excluded.reach, clicks = excluded.clicks,
    purchases = excluded.purchases, purchase_value = excluded.purchase_value, roas = excluded.roas,
    -- end
    conversions = excluded.conversions, synced_at = excluded.synced_at, raw_payload = excluded.raw_payload,
    platform_ad_account_id = excluded.platform_ad_account_id, currency = excluded.currency,
    timezone = excluded.timezone, updated_at = excluded.updated_at
