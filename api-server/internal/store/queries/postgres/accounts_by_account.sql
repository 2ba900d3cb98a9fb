-- accounts_by_account: accounts.sql for the account whose id is $4 (its
-- meta that of meta_by_account.sql).
-- $1 organization, $2 limit, $3 offset, $4 account id.
SELECT
    (SELECT data_as_of FROM organization_snapshots WHERE organization_id = $1) AS data_as_of,
    (SELECT count(*) FROM ad_accounts WHERE organization_id = $1 AND id = $4) AS account_found,
    (SELECT epoch FROM key_state_epochs WHERE organization_id = $1) AS key_epoch,
    (SELECT max(id) FROM insight_imports WHERE organization_id = $1) AS data_version,
    -- generated: Account columns (store/gen, from store/schema; go generate rewrites the lines up to "-- end")
    id, account_name, currency, timezone, is_active, last_sync_at
    -- end
FROM ad_accounts
WHERE organization_id = $1 AND id = $4
ORDER BY id
LIMIT $2 OFFSET $3
