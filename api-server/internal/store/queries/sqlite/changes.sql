-- changes: changes.sql of PostgreSQL on SQLite, where the watermark is seq
-- (one writer at a time: seq order is commit order): the window is
-- lo <= seq < hi, hi given or, on a sync's first page (?3 -1), one more
-- than the organization's newest seq, read by this same statement (one
-- snapshot), so that a window's end is never 0 and both dialects' windows
-- read alike (the contract's lo < seq <= max(seq), shifted by one).
-- An entry is sent only when no entry of its row follows it; the row's
-- current values come from insights_daily, a missing row is a removal.
-- Columns as the PostgreSQL statement, less key_epoch; the insight's
-- NOT NULL columns read '' or 0 on a removal and on the empty row.
-- ?1 organization, ?2 lo, ?3 hi (-1 on a first page), ?4 the cursor's seq
-- (lo - 1 on a first page), ?6 limit (?5 unused: PostgreSQL's cursor has
-- two parts).
WITH w AS (
    SELECT CASE WHEN ?3 < 0
        THEN (SELECT COALESCE(max(seq), 0) + 1 FROM insight_changes WHERE organization_id = ?1)
        ELSE ?3 END AS hi
),
p AS (
    SELECT e.seq AS change_txid, e.seq AS change_seq, e.insight_id AS change_id,
        e.account_id AS change_account_id, e.date AS change_date,
        -- generated: Insight columns of d (store/gen, from store/schema; go generate rewrites the lines up to "-- end")
        d.id, d.platform_ad_account_id, d.attribution_window, d.campaign_id, d.date,
        d.synced_at, d.currency, d.timezone, d.purchase_measurement, d.spend, d.ctr,
        d.cpc, d.cpm, d.impressions, d.reach, d.clicks, d.purchases, d.purchase_value,
        d.roas
        -- end
    FROM insight_changes e
    CROSS JOIN w
    LEFT JOIN insights_daily d ON d.id = e.insight_id AND d.organization_id = ?1
    WHERE e.organization_id = ?1 AND e.seq >= ?2 AND e.seq < w.hi AND e.seq > ?4 AND ?5 IS NOT NULL
      AND NOT EXISTS (
          SELECT 1 FROM insight_changes l
          WHERE l.organization_id = ?1 AND l.insight_id = e.insight_id AND l.seq > e.seq)
    ORDER BY e.seq
    LIMIT ?6
)
SELECT
    (SELECT data_as_of FROM organization_snapshots WHERE organization_id = ?1) AS data_as_of,
    1 AS account_found,
    w.hi AS hi,
    (SELECT h.pruned_below FROM insight_change_horizons h WHERE h.organization_id = ?1) AS pruned_below,
    w.hi AS now_xmin,
    p.change_txid, p.change_seq, p.change_id, p.change_account_id, p.change_date,
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
