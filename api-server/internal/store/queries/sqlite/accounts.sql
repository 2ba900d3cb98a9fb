-- accounts: a page of the organization's ad accounts, ordered by id.
-- ?1 organization, ?2 limit, ?3 offset.
SELECT
    -- generated: Account columns (store/gen, from store/schema; go generate rewrites the lines up to "-- end")
    id, account_name, currency, timezone, is_active, last_sync_at
    -- end
FROM ad_accounts
WHERE organization_id = ?1
ORDER BY id
LIMIT ?2 OFFSET ?3
