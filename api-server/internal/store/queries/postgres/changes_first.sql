-- changes_first: a page of a first sync (no since token; DESIGN §4b):
-- every current row of the organization as an upsert, in the insights
-- list's order (date descending, then id), after the cursor's row. hi is
-- the watermark that the sync's token will carry: given (a later page), or
-- this statement's snapshot xmin on the first page ($2 ''). A row with a
-- change entry at or after hi is left out: its newest values come with the
-- next sync's window (changes.sql), so that no change is read twice.
-- Columns as changes.sql (the entry's columns NULL; pruned_below NULL).
-- $1 organization, $2 hi ('' on the first page), $3 and $4 the cursor's
-- row (date, id; '9999-12-31' and '' on the first page), $5 limit.
-- Index: insights_daily_org_date_id_idx (organization_id, date DESC, id),
-- and per row insight_changes_insight_idx.
WITH w AS MATERIALIZED (
    SELECT pg_snapshot_xmin(pg_current_snapshot()) AS now_xmin,
           CASE WHEN $2::text = '' THEN pg_snapshot_xmin(pg_current_snapshot()) ELSE $2::text::xid8 END AS hi
)
SELECT
    (SELECT data_as_of FROM organization_snapshots WHERE organization_id = $1) AS data_as_of,
    1::bigint AS account_found,
    (SELECT epoch FROM key_state_epochs WHERE organization_id = $1) AS key_epoch,
    (SELECT max(id) FROM insight_imports WHERE organization_id = $1) AS data_version,
    w.hi::text AS hi,
    NULL::text AS pruned_below,
    w.now_xmin::text AS now_xmin,
    NULL::text AS change_txid, NULL::bigint AS change_seq, NULL::text AS change_id,
    NULL::text AS change_account_id, NULL::text AS change_date,
    -- generated: Insight joined columns of p (store/gen, from store/schema; go generate rewrites the lines up to "-- end")
    p.id, p.platform_ad_account_id, p.attribution_window, p.campaign_id, p.date,
    p.synced_at, p.currency, p.timezone, p.purchase_measurement, p.spend, p.ctr, p.cpc,
    p.cpm, p.impressions, p.reach, p.clicks, p.purchases, p.purchase_value, p.roas
    -- end
FROM w
LEFT JOIN LATERAL (
    SELECT
        -- generated: Insight columns of d (store/gen, from store/schema; go generate rewrites the lines up to "-- end")
        d.id, d.platform_ad_account_id, d.attribution_window, d.campaign_id,
        to_char(d.date, 'YYYY-MM-DD') AS date, d.synced_at, d.currency, d.timezone,
        d.purchase_measurement, d.spend::text AS spend, d.ctr::text AS ctr,
        d.cpc::text AS cpc, d.cpm::text AS cpm, d.impressions, d.reach, d.clicks,
        d.purchases, d.purchase_value, d.roas
        -- end
    FROM insights_daily d
    WHERE d.organization_id = $1
      AND d.date <= $3::date AND (d.date < $3::date OR d.id > $4::text)
      AND NOT EXISTS (
          SELECT 1 FROM insight_changes l
          WHERE l.organization_id = $1 AND l.insight_id = d.id AND l.txid >= w.hi)
    ORDER BY d.date DESC, d.id
    LIMIT $5
) p ON true
