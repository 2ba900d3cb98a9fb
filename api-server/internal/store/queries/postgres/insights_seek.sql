-- insights_seek: insights.sql at a deep offset ($3 from seekFrom on,
-- read_pg.go), positioned without walking the rows before the offset. The
-- per-day row counts (insights_daily_counts, recomputed exactly for the days
-- an import touches, in its transaction: snapshot's day_counts.sql) give, by a running sum over
-- at most 90 days, the day on which row $3 falls and how many of that day's
-- rows come before it:
--   c    the window's day counts, newest first, with their running sum;
--   day  the day of row $3, and the rows of that day to skip;
--   pos  the (date, id) of row $3, found among that day's rows only (an
--        index-only scan of insights_daily_org_date_id_key_idx);
-- and the page is read from pos on. Same parameters, columns and rows as
-- insights.sql (TestPagesMatchPlainQueries); no row when $3 is past the end.
WITH c AS (
    SELECT date, n, sum(n) OVER (ORDER BY date DESC) AS upto
    FROM insights_daily_counts
    WHERE organization_id = $1 AND date >= $4::date AND date <= $5::date
),
day AS MATERIALIZED (
    SELECT date, ($3 - (upto - n))::bigint AS skip
    FROM c
    WHERE upto > $3
    ORDER BY date DESC
    LIMIT 1
),
pos AS MATERIALIZED (
    SELECT date, id
    FROM insights_daily
    WHERE organization_id = $1 AND date = (SELECT date FROM day)
    ORDER BY id
    LIMIT 1 OFFSET (SELECT skip FROM day)
)
SELECT
    (SELECT data_as_of FROM organization_snapshots WHERE organization_id = $1) AS data_as_of,
    1::bigint AS account_found,
    (SELECT epoch FROM key_state_epochs WHERE organization_id = $1) AS key_epoch,
    (SELECT max(id) FROM insight_imports WHERE organization_id = $1) AS data_version,
    -- generated: Insight columns of i (store/gen, from store/schema; go generate rewrites the lines up to "-- end")
    i.id, i.platform_ad_account_id, i.attribution_window, i.campaign_id,
    to_char(i.date, 'YYYY-MM-DD') AS date, i.synced_at, i.currency, i.timezone,
    i.purchase_measurement, i.spend::text AS spend, i.ctr::text AS ctr,
    i.cpc::text AS cpc, i.cpm::text AS cpm, i.impressions, i.reach, i.clicks,
    i.purchases, i.purchase_value, i.roas
    -- end
FROM insights_daily AS i
WHERE i.organization_id = $1 AND i.date >= $4::date
  AND i.date <= (SELECT date FROM pos)
  AND (i.date < (SELECT date FROM pos) OR i.id >= (SELECT id FROM pos))
ORDER BY i.date DESC, i.id
LIMIT $2
