-- meta_by_account: meta.sql, with account_found the number (0 or 1) of the
-- organization's accounts whose id is $2.
-- $1 organization, $2 account id.
SELECT
    (SELECT data_as_of FROM organization_snapshots WHERE organization_id = $1) AS data_as_of,
    (SELECT count(*) FROM ad_accounts WHERE organization_id = $1 AND id = $2) AS account_found,
    (SELECT epoch FROM key_state_epochs WHERE organization_id = $1) AS key_epoch,
    (SELECT max(id) FROM insight_imports WHERE organization_id = $1) AS data_version
