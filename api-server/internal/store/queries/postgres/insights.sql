-- insights: a page of the organization's daily insights dated $4 to $5
-- (inclusive), newest first, then by id, each row led by the page's meta
-- (as accounts.sql). Read below seekFrom (read_pg.go); deeper pages use
-- insights_seek.sql, which returns the same rows.
-- $1 organization, $2 limit, $3 offset, $4 from, $5 to (YYYY-MM-DD).
-- Index: insights_daily_org_date_id_idx (organization_id, date DESC, id).
-- ORDER BY names the table's date: a bare "date" would be the text column
-- of the select list (to_char), which no index serves.
SELECT
    (SELECT data_as_of FROM organization_snapshots WHERE organization_id = $1) AS data_as_of,
    1::bigint AS account_found,
    (SELECT epoch FROM key_state_epochs WHERE organization_id = $1) AS key_epoch,
    (SELECT max(id) FROM insight_imports WHERE organization_id = $1) AS data_version,
    -- generated: Insight columns (store/gen, from store/schema; go generate rewrites the lines up to "-- end")
    id, platform_ad_account_id, attribution_window, campaign_id,
    to_char(date, 'YYYY-MM-DD') AS date, synced_at, currency, timezone,
    purchase_measurement, spend::text AS spend, ctr::text AS ctr, cpc::text AS cpc,
    cpm::text AS cpm, impressions, reach, clicks, purchases, purchase_value, roas
    -- end
FROM insights_daily
WHERE organization_id = $1 AND date >= $4::date AND date <= $5::date
ORDER BY insights_daily.date DESC, id
LIMIT $2 OFFSET $3
