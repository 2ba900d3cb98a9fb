-- See postgres/insights_merge.sql: on SQLite the rows the upsert adds or
-- rewrites are recorded first, with the account and day they had, and
-- insights_merge.sql then writes those only.
INSERT INTO svc_import_touched (insight_id, organization_id, account_id, date, old_account_id, old_date, kind, stage)
SELECT s.id, a.organization_id, s.account_id, s.date, d.account_id, d.date, 'upsert', 2
FROM svc_import_insights s JOIN ad_accounts a ON a.id = s.account_id LEFT JOIN insights_daily d ON d.id = s.id
WHERE d.id IS NULL OR (d.account_id, d.campaign_id, d.date,
       -- generated: Insight compare columns of d (store/gen, from store/schema; go generate rewrites the lines up to "-- end")
       d.attribution_window, d.purchase_measurement, d.spend, d.ctr, d.cpc, d.cpm, d.impressions, d.reach,
       d.clicks, d.purchases, d.purchase_value, d.roas,
       -- end
       d.conversions, d.synced_at, d.raw_payload, d.platform_ad_account_id, d.currency, d.timezone)
    IS DISTINCT FROM (s.account_id, s.campaign_id, s.date,
       -- generated: Insight compare columns of s
       s.attribution_window, s.purchase_measurement, s.spend, s.ctr, s.cpc, s.cpm, s.impressions, s.reach,
       s.clicks, s.purchases, s.purchase_value, s.roas,
       -- end
       s.conversions, s.synced_at, s.raw_payload, a.platform_ad_account_id, a.currency, a.timezone)
