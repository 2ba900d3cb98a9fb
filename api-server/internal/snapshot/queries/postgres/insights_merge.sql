-- The insights' upsert (merge.go): every staged row with its account's
-- organization, platform id, currency and time zone; a stored row is
-- rewritten only when a value differs (decimals compared as text: numeric
-- compares 12.50 = 12.5), and a row that would change organization raises
-- SVC01 (pg_temp.svc_import_moved). Each row written gets its change-log
-- entry (CONTRACT-45: insight_changes, kind upsert, at its new day), and
-- its day and, for a row it rewrote (xmax is set: not added), the day it
-- had before (the join reads the statement's snapshot, which the upsert's
-- writes are not in) join svc_import_days.
-- The declared fields between "generated" markers are written by store/gen
-- from schema (go generate ../store; TestGeneratedRegions), the rest by
-- hand; TestMergeColumns checks each list whole. ?0: the import time.
WITH up AS (
    INSERT INTO insights_daily AS d (id, account_id, campaign_id, date,
        -- generated: Insight insert columns (store/gen, from store/schema; go generate rewrites the lines up to "-- end")
        attribution_window, purchase_measurement, spend, ctr, cpc, cpm, impressions, reach, clicks, purchases,
        purchase_value, roas,
        -- end
        conversions, synced_at, raw_payload, organization_id, platform_ad_account_id, currency, timezone, updated_at)
    SELECT s.id, s.account_id, s.campaign_id, s.date,
        -- generated: Insight select columns of s
        s.attribution_window, s.purchase_measurement, CAST(s.spend AS numeric), CAST(s.ctr AS numeric),
        CAST(s.cpc AS numeric), CAST(s.cpm AS numeric), s.impressions, s.reach, s.clicks, s.purchases,
        s.purchase_value, s.roas,
        -- end
        s.conversions, s.synced_at, s.raw_payload, a.organization_id, a.platform_ad_account_id, a.currency,
        a.timezone, CAST(?0 AS timestamptz)
    FROM svc_import_insights s JOIN ad_accounts a ON a.id = s.account_id
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
    WHERE CASE WHEN d.organization_id <> excluded.organization_id THEN pg_temp.svc_import_moved(excluded.id)
        ELSE (d.account_id, d.campaign_id, d.date,
              -- generated: Insight compare columns of d
              d.attribution_window, d.purchase_measurement, d.spend::text, d.ctr::text, d.cpc::text,
              d.cpm::text, d.impressions, d.reach, d.clicks, d.purchases, d.purchase_value, d.roas,
              -- end
              d.conversions, d.synced_at, d.raw_payload, d.platform_ad_account_id, d.currency, d.timezone)
            IS DISTINCT FROM
             (excluded.account_id, excluded.campaign_id, excluded.date,
              -- generated: Insight compare columns of excluded
              excluded.attribution_window, excluded.purchase_measurement, excluded.spend::text,
              excluded.ctr::text, excluded.cpc::text, excluded.cpm::text, excluded.impressions, excluded.reach,
              excluded.clicks, excluded.purchases, excluded.purchase_value, excluded.roas,
              -- end
              excluded.conversions, excluded.synced_at, excluded.raw_payload, excluded.platform_ad_account_id,
              excluded.currency, excluded.timezone) END
    RETURNING d.id, d.organization_id, d.account_id, d.date, d.xmax = 0 AS added),
ch AS (
    SELECT id, organization_id, account_id, date, NULL AS old_account_id, NULL::date AS old_date FROM up WHERE added
    UNION ALL
    SELECT up.id, up.organization_id, up.account_id, up.date, o.account_id, o.date
    FROM up JOIN insights_daily o ON o.id = up.id WHERE NOT up.added),
log AS (
    INSERT INTO insight_changes (organization_id, insight_id, account_id, date, kind)
    SELECT organization_id, id, account_id, date, 'upsert' FROM ch)
INSERT INTO svc_import_days (organization_id, account_id, date)
SELECT DISTINCT organization_id, account_id, date FROM (
    SELECT organization_id, account_id, date FROM ch
    UNION ALL SELECT organization_id, old_account_id, old_date FROM ch WHERE old_date IS NOT NULL) AS t
ON CONFLICT DO NOTHING
