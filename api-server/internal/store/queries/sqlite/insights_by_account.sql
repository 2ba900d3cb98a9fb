-- insights_by_account: insights.sql for the rows of account ?6.
-- ?1 organization, ?2 limit, ?3 offset, ?4 from, ?5 to, ?6 account id.
SELECT
    -- generated: Insight columns (store/gen, from store/schema; go generate rewrites the lines up to "-- end")
    id, platform_ad_account_id, attribution_window, campaign_id, date, synced_at,
    currency, timezone, purchase_measurement, spend, ctr, cpc, cpm, impressions, reach,
    clicks, purchases, purchase_value, roas
    -- end
FROM insights_daily
WHERE organization_id = ?1 AND account_id = ?6 AND date >= ?4 AND date <= ?5
ORDER BY date DESC, id
LIMIT ?2 OFFSET ?3
