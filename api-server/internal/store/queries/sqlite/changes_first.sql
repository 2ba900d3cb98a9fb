-- changes_first: changes_first.sql of PostgreSQL on SQLite: every current
-- row, date descending then id, after the cursor's row, less the rows with
-- an entry at or after hi (their values come with the next sync). hi is
-- given, or on the first page (?2 -1) one more than the organization's
-- newest seq, read by this same statement.
-- ?1 organization, ?2 hi (-1 on the first page), ?3 and ?4 the cursor's row
-- (date, id; '9999-12-31' and '' on the first page), ?5 limit.
WITH w AS (
    SELECT CASE WHEN ?2 < 0
        THEN (SELECT COALESCE(max(seq), 0) + 1 FROM insight_changes WHERE organization_id = ?1)
        ELSE ?2 END AS hi
),
p AS (
    SELECT
        -- generated: Insight columns of d (store/gen, from store/schema; go generate rewrites the lines up to "-- end")
        d.id, d.platform_ad_account_id, d.attribution_window, d.campaign_id, d.date,
        d.synced_at, d.currency, d.timezone, d.purchase_measurement, d.spend, d.ctr,
        d.cpc, d.cpm, d.impressions, d.reach, d.clicks, d.purchases, d.purchase_value,
        d.roas
        -- end
    FROM insights_daily d
    CROSS JOIN w
    WHERE d.organization_id = ?1
      AND d.date <= ?3 AND (d.date < ?3 OR d.id > ?4)
      AND NOT EXISTS (
          SELECT 1 FROM insight_changes l
          WHERE l.organization_id = ?1 AND l.insight_id = d.id AND l.seq >= w.hi)
    ORDER BY d.date DESC, d.id
    LIMIT ?5
)
SELECT
    (SELECT data_as_of FROM organization_snapshots WHERE organization_id = ?1) AS data_as_of,
    1 AS account_found,
    w.hi AS hi,
    NULL AS pruned_below,
    w.hi AS now_xmin,
    NULL AS change_txid, NULL AS change_seq, NULL AS change_id,
    NULL AS change_account_id, NULL AS change_date,
    -- generated: Insight joined columns of p (store/gen, from store/schema; go generate rewrites the lines up to "-- end")
    p.id, COALESCE(p.platform_ad_account_id, '') AS platform_ad_account_id,
    COALESCE(p.attribution_window, '') AS attribution_window, p.campaign_id,
    COALESCE(p.date, '') AS date, p.synced_at, COALESCE(p.currency, '') AS currency,
    COALESCE(p.timezone, '') AS timezone,
    COALESCE(p.purchase_measurement, '') AS purchase_measurement,
    COALESCE(p.spend, '') AS spend, COALESCE(p.ctr, '') AS ctr,
    COALESCE(p.cpc, '') AS cpc, COALESCE(p.cpm, '') AS cpm,
    COALESCE(p.impressions, 0) AS impressions, COALESCE(p.reach, 0) AS reach,
    COALESCE(p.clicks, 0) AS clicks, p.purchases, p.purchase_value, p.roas
    -- end
FROM w LEFT JOIN p ON 1
