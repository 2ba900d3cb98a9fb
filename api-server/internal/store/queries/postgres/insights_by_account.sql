-- insights_by_account: insights.sql for the rows of account $6.
-- $1 organization, $2 limit, $3 offset, $4 from, $5 to, $6 account id.
-- Index: insights_daily_org_account_date_id_idx (organization_id, account_id, date DESC, id).
SELECT
    (SELECT data_as_of FROM organization_snapshots WHERE organization_id = $1) AS data_as_of,
    (SELECT count(*) FROM ad_accounts WHERE organization_id = $1 AND id = $6) AS account_found,
    (SELECT epoch FROM key_state_epochs WHERE organization_id = $1) AS key_epoch,
    (SELECT max(id) FROM insight_imports WHERE organization_id = $1) AS data_version,
    -- generated: Insight columns (store/gen, from store/schema; go generate rewrites the lines up to "-- end")
    id, platform_ad_account_id, attribution_window, campaign_id,
    to_char(date, 'YYYY-MM-DD') AS date, synced_at, currency, timezone,
    purchase_measurement, spend::text AS spend, ctr::text AS ctr, cpc::text AS cpc,
    cpm::text AS cpm, impressions, reach, clicks, purchases, purchase_value, roas
    -- end
FROM insights_daily
WHERE organization_id = $1 AND account_id = $6 AND date >= $4::date AND date <= $5::date
ORDER BY insights_daily.date DESC, id
LIMIT $2 OFFSET $3
