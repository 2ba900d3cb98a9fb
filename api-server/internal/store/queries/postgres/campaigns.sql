-- campaigns: a page of the organization's campaigns, ordered by id, each
-- row led by the page's meta (as accounts.sql). Budgets are numeric, read
-- as their text.
-- $1 organization, $2 limit, $3 offset.
-- Index: campaigns_org_id_idx (organization_id, id).
SELECT
    (SELECT data_as_of FROM organization_snapshots WHERE organization_id = $1) AS data_as_of,
    1::bigint AS account_found,
    (SELECT epoch FROM key_state_epochs WHERE organization_id = $1) AS key_epoch,
    (SELECT max(id) FROM insight_imports WHERE organization_id = $1) AS data_version,
    -- generated: Campaign columns (store/gen, from store/schema; go generate rewrites the lines up to "-- end")
    id, platform_ad_account_id, name, objective, status, effective_status,
    daily_budget::text AS daily_budget, lifetime_budget::text AS lifetime_budget,
    synced_at, currency, timezone
    -- end
FROM campaigns
WHERE organization_id = $1
ORDER BY id
LIMIT $2 OFFSET $3
