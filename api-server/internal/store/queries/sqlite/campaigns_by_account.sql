-- campaigns_by_account: campaigns.sql for the campaigns of account ?4.
-- ?1 organization, ?2 limit, ?3 offset, ?4 account id.
SELECT
    -- generated: Campaign columns (store/gen, from store/schema; go generate rewrites the lines up to "-- end")
    id, platform_ad_account_id, name, objective, status, effective_status,
    daily_budget, lifetime_budget, synced_at, currency, timezone
    -- end
FROM campaigns
WHERE organization_id = ?1 AND account_id = ?4
ORDER BY id
LIMIT ?2 OFFSET ?3
