-- accounts_by_account: accounts.sql for the account whose id is ?4.
-- ?1 organization, ?2 limit, ?3 offset, ?4 account id.
SELECT
    -- generated: Account columns (store/gen, from store/schema; go generate rewrites the lines up to "-- end")
    id, account_name, currency, timezone, is_active, last_sync_at
    -- end
FROM ad_accounts
WHERE organization_id = ?1 AND id = ?4
ORDER BY id
LIMIT ?2 OFFSET ?3
