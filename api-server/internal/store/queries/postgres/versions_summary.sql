-- versions_summary: the tag material of a summary page (DESIGN §4c,
-- store/versions.go): the versions of every day of the window $2 to $3
-- (of account $4, or of every account when ''), whatever the page's
-- groups, and the window's row count; the accounts' and campaigns'
-- versions (snapshot_versions: the groups carry their names and status,
-- and status filters them); the snapshot time when no version row covers
-- the window. Led by the meta columns, as meta.sql.
-- $1 organization, $2 from, $3 to, $4 account id ('' for every account).
WITH v AS (
    SELECT count(*) AS k, coalesce(sum(version), 0)::bigint AS s
    FROM insight_day_versions
    WHERE organization_id = $1 AND ($4::text = '' OR account_id = $4::text)
      AND date >= $2::date AND date <= $3::date
),
c AS (
    SELECT coalesce(sum(n), 0)::bigint AS n
    FROM (
        SELECT n FROM insights_daily_counts
        WHERE $4::text = '' AND organization_id = $1 AND date >= $2::date AND date <= $3::date
        UNION ALL
        SELECT n FROM insights_daily_account_counts
        WHERE $4::text <> '' AND organization_id = $1 AND account_id = $4::text
          AND date >= $2::date AND date <= $3::date
    ) AS d
)
SELECT
    (SELECT data_as_of FROM organization_snapshots WHERE organization_id = $1) AS data_as_of,
    CASE WHEN $4::text = '' THEN 1::bigint
         ELSE (SELECT count(*) FROM ad_accounts WHERE organization_id = $1 AND id = $4::text) END AS account_found,
    (SELECT epoch FROM key_state_epochs WHERE organization_id = $1) AS key_epoch,
    (SELECT max(id) FROM insight_imports WHERE organization_id = $1) AS data_version,
    concat_ws(':', 's', c.n, v.k, v.s,
        coalesce((SELECT sum(version) FROM snapshot_versions WHERE organization_id = $1), 0),
        CASE WHEN v.k = 0 THEN (SELECT data_as_of FROM organization_snapshots WHERE organization_id = $1) END) AS material
FROM v, c
