-- campaigns: a page of the organization's campaigns, ordered by id. Budgets
-- are stored as their decimal text.
-- ?1 organization, ?2 limit, ?3 offset.
SELECT
    -- generated: Campaign columns (store/gen, from store/schema; go generate rewrites the lines up to "-- end")
    id, platform_ad_account_id, name, objective, status, effective_status,
    daily_budget, lifetime_budget, synced_at, currency, timezone
    -- end
FROM campaigns
WHERE organization_id = ?1
ORDER BY id
LIMIT ?2 OFFSET ?3
