-- versions_insights_by_account: versions_insights.sql for the rows of
-- account ?6.
-- ?1 organization, ?2 limit (+1), ?3 offset, ?4 from, ?5 to, ?6 account id.
WITH c AS (
    SELECT date, n, sum(n) OVER (ORDER BY date DESC) AS upto
    FROM (
        SELECT date, count(*) AS n FROM insights_daily
        WHERE organization_id = ?1 AND account_id = ?6 AND date >= ?4 AND date <= ?5
        GROUP BY date
    )
),
span AS (
    SELECT min(date) AS lo, max(date) AS hi, min(upto - n) AS before, sum(n) AS n
    FROM c
    WHERE upto > ?3 AND upto - n < ?3 + ?2
),
v AS (
    SELECT count(*) AS k, coalesce(sum(version), 0) AS s
    FROM insight_day_versions
    WHERE organization_id = ?1 AND account_id = ?6
      AND date >= (SELECT lo FROM span) AND date <= (SELECT hi FROM span)
)
SELECT
    (SELECT data_as_of FROM organization_snapshots WHERE organization_id = ?1) AS data_as_of,
    (SELECT count(*) FROM ad_accounts WHERE organization_id = ?1 AND id = ?6) AS account_found,
    concat_ws(':', 'i', span.lo, span.hi, span.before, span.n,
        CASE WHEN span.lo IS NULL THEN (SELECT coalesce(sum(n), 0) FROM c) END,
        v.k, v.s,
        CASE WHEN v.k = 0 THEN (SELECT data_as_of FROM organization_snapshots WHERE organization_id = ?1) END) AS material
FROM span, v
