-- versions_campaigns: the tag material of a campaigns page (DESIGN §4c,
-- store/versions.go): the organization's campaigns version
-- (snapshot_versions) and its snapshot time, which every import that
-- syncs one of its accounts moves. Led by the meta columns, as meta.sql.
-- $1 organization, $2 account id ('' for every account).
SELECT
    (SELECT data_as_of FROM organization_snapshots WHERE organization_id = $1) AS data_as_of,
    CASE WHEN $2::text = '' THEN 1::bigint
         ELSE (SELECT count(*) FROM ad_accounts WHERE organization_id = $1 AND id = $2::text) END AS account_found,
    (SELECT epoch FROM key_state_epochs WHERE organization_id = $1) AS key_epoch,
    (SELECT max(id) FROM insight_imports WHERE organization_id = $1) AS data_version,
    concat_ws(':', 'c',
        coalesce((SELECT version FROM snapshot_versions WHERE organization_id = $1 AND resource = 'campaigns'), 0),
        (SELECT data_as_of FROM organization_snapshots WHERE organization_id = $1)) AS material
