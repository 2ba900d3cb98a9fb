-- versions_insights: the tag material of an insights page (DESIGN §4c,
-- store/versions.go), read before the page and without its rows, led by
-- the meta columns (as meta.sql, the key-state epoch included). A page
-- sorted by date descending holds the rows $3 to $3+$2-1 of the window; the
-- per-day row counts (insights_daily_counts) give, by a running sum over
-- at most the window's days, which days those rows fall on (span) and how
-- many rows of newer days come before them (before): the page is the same
-- while those days' versions (insight_day_versions: count and sum, which
-- change exactly when a row of those days changed), their row counts and
-- the rows before them are. When no version row covers the span (data
-- imported before the versions were kept) the snapshot time stands in.
-- $1 organization, $2 limit (+1), $3 offset, $4 from, $5 to.
WITH c AS (
    SELECT date, n, (sum(n) OVER (ORDER BY date DESC))::bigint AS upto
    FROM insights_daily_counts
    WHERE organization_id = $1 AND date >= $4::date AND date <= $5::date AND n > 0
),
span AS MATERIALIZED (
    SELECT min(date) AS lo, max(date) AS hi, min(upto - n) AS before, sum(n)::bigint AS n
    FROM c
    WHERE upto > $3::bigint AND upto - n < $3::bigint + $2::bigint
),
v AS (
    SELECT count(*) AS k, coalesce(sum(version), 0)::bigint AS s
    FROM insight_day_versions
    WHERE organization_id = $1
      AND date >= (SELECT lo FROM span) AND date <= (SELECT hi FROM span)
)
SELECT
    (SELECT data_as_of FROM organization_snapshots WHERE organization_id = $1) AS data_as_of,
    1::bigint AS account_found,
    (SELECT epoch FROM key_state_epochs WHERE organization_id = $1) AS key_epoch,
    (SELECT max(id) FROM insight_imports WHERE organization_id = $1) AS data_version,
    concat_ws(':', 'i', span.lo, span.hi, span.before, span.n,
        CASE WHEN span.lo IS NULL THEN (SELECT coalesce(sum(n), 0) FROM c) END,
        v.k, v.s,
        CASE WHEN v.k = 0 THEN (SELECT data_as_of FROM organization_snapshots WHERE organization_id = $1) END) AS material
FROM span, v
