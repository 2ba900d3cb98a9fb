-- insights: a page of the organization's daily insights dated ?4 to ?5
-- (inclusive, YYYY-MM-DD text), newest first, then by id. Every page,
-- however deep, is read this way on SQLite.
-- ?1 organization, ?2 limit, ?3 offset, ?4 from, ?5 to.
SELECT
    -- generated: Insight columns (store/gen, from store/schema; go generate rewrites the lines up to "-- end")
    id, platform_ad_account_id, attribution_window, campaign_id, date, synced_at,
    currency, timezone, purchase_measurement, spend, ctr, cpc, cpm, impressions, reach,
    clicks, purchases, purchase_value, roas
    -- end
FROM insights_daily
WHERE organization_id = ?1 AND date >= ?4 AND date <= ?5
ORDER BY date DESC, id
LIMIT ?2 OFFSET ?3
