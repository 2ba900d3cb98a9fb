-- accounts: a page of the organization's ad accounts, ordered by id, each
-- row led by the columns of meta.sql (data_as_of, account_found,
-- key_epoch), so that a page, its meta and the request's key-state epoch
-- are one statement.
-- $1 organization, $2 limit, $3 offset.
-- Index: ad_accounts_org_id_idx (organization_id, id).
SELECT
    (SELECT data_as_of FROM organization_snapshots WHERE organization_id = $1) AS data_as_of,
    1::bigint AS account_found,
    (SELECT epoch FROM key_state_epochs WHERE organization_id = $1) AS key_epoch,
    (SELECT max(id) FROM insight_imports WHERE organization_id = $1) AS data_version,
    -- generated: Account columns (store/gen, from store/schema; go generate rewrites the lines up to "-- end")
    id, account_name, currency, timezone, is_active, last_sync_at
    -- end
FROM ad_accounts
WHERE organization_id = $1
ORDER BY id
LIMIT $2 OFFSET $3
