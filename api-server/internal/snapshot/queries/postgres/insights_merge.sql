-- The insights' merge (merge.go, postgres.go): a stored row is rewritten
-- when a value differs (decimals as text: numeric has 12.50 = 12.5), one
-- that would change organization raises SVC01, a new id is inserted; each
-- row written gets its change-log entry (CONTRACT-45: insight_changes, at
-- its new day), and its day and a rewritten row's old day (read from the
-- statement's snapshot) join svc_import_days. Generated lists: store/gen
-- (TestGeneratedRegions); TestMergeColumns checks each list whole. ?0: now.
WITH upd AS (
    UPDATE insights_daily AS d SET account_id = excluded.account_id, campaign_id = excluded.campaign_id,
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
    FROM (SELECT s.id, s.account_id, s.campaign_id, s.date,
            -- generated: Insight select columns of s
            s.attribution_window, s.purchase_measurement, CAST(s.spend AS numeric), CAST(s.ctr AS numeric),
            CAST(s.cpc AS numeric), CAST(s.cpm AS numeric), s.impressions, s.reach, s.clicks, s.purchases,
            s.purchase_value, s.roas,
            -- end
            s.conversions, s.synced_at, s.raw_payload, a.organization_id, a.platform_ad_account_id, a.currency,
            a.timezone, CAST(?0 AS timestamptz)
        FROM svc_import_insights s JOIN ad_accounts a ON a.id = s.account_id)
        AS excluded (id, account_id, campaign_id, date,
            -- generated: Insight insert columns
            attribution_window, purchase_measurement, spend, ctr, cpc, cpm, impressions, reach, clicks,
            purchases, purchase_value, roas,
            -- end
            conversions, synced_at, raw_payload, organization_id, platform_ad_account_id, currency, timezone,
            updated_at)
    WHERE d.id = excluded.id AND CASE WHEN d.organization_id <> excluded.organization_id THEN pg_temp.svc_import_moved(excluded.id)
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
    RETURNING d.id, d.organization_id, d.account_id, d.date),
ins AS (
    INSERT INTO insights_daily AS d (id, account_id, campaign_id, date,
        -- generated: Insight insert columns
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
    WHERE NOT EXISTS (SELECT 1 FROM insights_daily o WHERE o.id = s.id)
    RETURNING d.id, d.organization_id, d.account_id, d.date),
ch AS (
    SELECT id, organization_id, account_id, date, NULL AS old_account_id, NULL::date AS old_date FROM ins
    UNION ALL
    SELECT upd.id, upd.organization_id, upd.account_id, upd.date, o.account_id, o.date
    FROM upd JOIN insights_daily o ON o.id = upd.id),
log AS (
    INSERT INTO insight_changes (organization_id, insight_id, account_id, date, kind)
    SELECT organization_id, id, account_id, date, 'upsert' FROM ch)
INSERT INTO svc_import_days (organization_id, account_id, date)
SELECT DISTINCT organization_id, account_id, date FROM (
    SELECT organization_id, account_id, date FROM ch
    UNION ALL SELECT organization_id, old_account_id, old_date FROM ch WHERE old_date IS NOT NULL) AS t
ON CONFLICT DO NOTHING
