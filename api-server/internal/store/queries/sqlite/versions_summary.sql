-- versions_summary: postgres/versions_summary.sql on SQLite (the window's
-- rows counted from insights_daily).
-- ?1 organization, ?2 from, ?3 to, ?4 account id ('' for every account).
WITH v AS (
    SELECT count(*) AS k, coalesce(sum(version), 0) AS s
    FROM insight_day_versions
    WHERE organization_id = ?1 AND (?4 = '' OR account_id = ?4) AND date >= ?2 AND date <= ?3
),
c AS (
    SELECT count(*) AS n FROM insights_daily
    WHERE organization_id = ?1 AND (?4 = '' OR account_id = ?4) AND date >= ?2 AND date <= ?3
)
SELECT
    (SELECT data_as_of FROM organization_snapshots WHERE organization_id = ?1) AS data_as_of,
    CASE WHEN ?4 = '' THEN 1
         ELSE (SELECT count(*) FROM ad_accounts WHERE organization_id = ?1 AND id = ?4) END AS account_found,
    concat_ws(':', 's', c.n, v.k, v.s,
        coalesce((SELECT sum(version) FROM snapshot_versions WHERE organization_id = ?1), 0),
        CASE WHEN v.k = 0 THEN (SELECT data_as_of FROM organization_snapshots WHERE organization_id = ?1) END) AS material
FROM v, c
