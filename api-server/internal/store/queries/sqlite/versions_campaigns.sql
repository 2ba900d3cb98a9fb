-- versions_campaigns: postgres/versions_campaigns.sql on SQLite.
-- ?1 organization, ?2 account id ('' for every account).
SELECT
    (SELECT data_as_of FROM organization_snapshots WHERE organization_id = ?1) AS data_as_of,
    CASE WHEN ?2 = '' THEN 1
         ELSE (SELECT count(*) FROM ad_accounts WHERE organization_id = ?1 AND id = ?2) END AS account_found,
    concat_ws(':', 'c',
        coalesce((SELECT version FROM snapshot_versions WHERE organization_id = ?1 AND resource = 'campaigns'), 0),
        (SELECT data_as_of FROM organization_snapshots WHERE organization_id = ?1)) AS material
