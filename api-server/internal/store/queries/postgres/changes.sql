-- changes: a page of the organization's changes in the window lo <= txid <
-- hi (DESIGN §4b), in commit-order watermark order (txid, seq), after the
-- cursor's entry. hi is the watermark of the window: given (a later page of
-- the same window), or, on a sync's first page ($3 ''), this statement's
-- snapshot xmin, below which every transaction has committed or aborted, so
-- that the window is final. An entry is sent only when it is the newest
-- entry of its row (no entry of the same insight_id after it, in this window
-- or a later one): a row changed again after hi is sent by the window that
-- holds its newest entry, once, and never twice. The row's current values
-- come from insights_daily; a row that no longer exists is a removal
-- (insight_id, account_id, date from the entry).
-- Each row is led by the meta columns (as accounts.sql), then hi, the
-- organization's pruned_below (410 when lo is below it), now_xmin (this
-- server's snapshot xmin: Routed reads on a replica only when it has
-- replayed up to the window) and the entry. A window without an entry
-- still returns one row, its entry and insight columns NULL.
-- $1 organization, $2 lo, $3 hi ('' on a first page), $4 and $5 the
-- cursor's entry (txid, seq; lo and 0 on a first page), $6 limit. The
-- xid8 values travel as decimal text.
-- Index: insight_changes_pkey (organization_id, txid, seq), then per entry
-- insight_changes_insight_idx (organization_id, insight_id, txid, seq)
-- and insights_daily_pkey (id).
WITH w AS MATERIALIZED (
    SELECT pg_snapshot_xmin(pg_current_snapshot()) AS now_xmin,
           CASE WHEN $3::text = '' THEN pg_snapshot_xmin(pg_current_snapshot()) ELSE $3::text::xid8 END AS hi
)
SELECT
    (SELECT data_as_of FROM organization_snapshots WHERE organization_id = $1) AS data_as_of,
    1::bigint AS account_found,
    (SELECT epoch FROM key_state_epochs WHERE organization_id = $1) AS key_epoch,
    (SELECT max(id) FROM insight_imports WHERE organization_id = $1) AS data_version,
    w.hi::text AS hi,
    (SELECT h.pruned_below::text FROM insight_change_horizons h WHERE h.organization_id = $1) AS pruned_below,
    w.now_xmin::text AS now_xmin,
    p.change_txid, p.change_seq, p.change_id, p.change_account_id, p.change_date,
    -- generated: Insight joined columns of p (store/gen, from store/schema; go generate rewrites the lines up to "-- end")
    p.id, p.platform_ad_account_id, p.attribution_window, p.campaign_id, p.date,
    p.synced_at, p.currency, p.timezone, p.purchase_measurement, p.spend, p.ctr, p.cpc,
    p.cpm, p.impressions, p.reach, p.clicks, p.purchases, p.purchase_value, p.roas
    -- end
FROM w
LEFT JOIN LATERAL (
    SELECT e.txid::text AS change_txid, e.seq AS change_seq, e.insight_id AS change_id,
        e.account_id AS change_account_id, to_char(e.date, 'YYYY-MM-DD') AS change_date,
        -- generated: Insight columns of d (store/gen, from store/schema; go generate rewrites the lines up to "-- end")
        d.id, d.platform_ad_account_id, d.attribution_window, d.campaign_id,
        to_char(d.date, 'YYYY-MM-DD') AS date, d.synced_at, d.currency, d.timezone,
        d.purchase_measurement, d.spend::text AS spend, d.ctr::text AS ctr,
        d.cpc::text AS cpc, d.cpm::text AS cpm, d.impressions, d.reach, d.clicks,
        d.purchases, d.purchase_value, d.roas
        -- end
    FROM insight_changes e
    LEFT JOIN insights_daily d ON d.id = e.insight_id AND d.organization_id = $1
    WHERE e.organization_id = $1
      AND e.txid >= $2::text::xid8 AND e.txid < w.hi
      AND (e.txid, e.seq) > ($4::text::xid8, $5::bigint)
      AND NOT EXISTS (
          SELECT 1 FROM insight_changes l
          WHERE l.organization_id = $1 AND l.insight_id = e.insight_id
            AND (l.txid, l.seq) > (e.txid, e.seq))
    ORDER BY e.txid, e.seq
    LIMIT $6
) p ON true
